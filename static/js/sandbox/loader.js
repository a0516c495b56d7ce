/* Fabula custom UI runtime: the loader of the world's modules (part of static/js/sandbox/main.js).
 *
 * static/js/compile.js bundles the world's compiled files as define(path, factory) calls in one
 * blob: script; require() here resolves their imports the way a bundler would (relative paths,
 * extensions, index files), hands out React, ReactDOM and the "yumina" built-ins, and gives each
 * module the guarded globals of guards.js in place of fetch, XMLHttpRequest, WebSocket,
 * EventSource, localStorage, sessionStorage and location (compile.js MODULE_PARAMS).
 */
import { builtins } from "./components.js";
import { blocked, fakeLocation, localShim, sessionShim, shimFetch } from "./guards.js";

var React = window.React;
var ReactDOM = window.ReactDOM;
var factories = {};
var cache = {};
var EXTENSIONS = ["", ".tsx", ".ts", ".jsx", ".js", ".mjs", ".json", ".css"];

export function define(path, factory) { factories[path] = factory; }

function join(from, spec) {
  var parts = from.split("/");
  parts.pop();
  spec.split("/").forEach(function (p) {
    if (p === "..") parts.pop();
    else if (p !== "." && p !== "") parts.push(p);
  });
  return parts.join("/");
}

function resolve(from, spec) {
  var base = spec.charAt(0) === "." ? join(from, spec) : spec.replace(/^\/+/, "");
  for (var i = 0; i < EXTENSIONS.length; i++) {
    if (factories[base + EXTENSIONS[i]]) return base + EXTENSIONS[i];
  }
  for (var j = 1; j < EXTENSIONS.length; j++) {
    if (factories[base + "/index" + EXTENSIONS[j]]) return base + "/index" + EXTENSIONS[j];
  }
  return null;
}

export function load(path) {
  if (cache[path]) return cache[path].exports;
  var module = { exports: {} };
  cache[path] = module;
  var no = blocked;
  factories[path].call(undefined, function (spec) { return requireFrom(path, spec); }, module,
    module.exports, shimFetch, no("XMLHttpRequest"), no("WebSocket"), no("EventSource"),
    localShim, sessionShim, undefined, undefined, undefined, fakeLocation);
  return module.exports;
}

function requireFrom(from, spec) {
  spec = String(spec);
  // __esModule: the compiler's interop then takes `default` as it is (import React from …).
  if (spec === "react") return Object.assign({ __esModule: true, default: React }, React);
  if (spec === "react-dom" || spec === "react-dom/client") {
    return Object.assign({ __esModule: true, default: ReactDOM }, ReactDOM);
  }
  if (/^@?yumina(\/|$)/.test(spec)) return Object.assign({ __esModule: true, default: builtins.Chat }, builtins);
  var path = resolve(from, spec);
  if (!path) throw new Error("Cannot find module '" + spec + "' from " + from);
  return load(path);
}
