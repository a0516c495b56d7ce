"""The game engine: worlds, prompts, directives, state, rules and the game master; no Django."""

from engine.native import activate

activate(__path__)
