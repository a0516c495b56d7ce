"""Custom UI compile time in the browser (issue 15 "Checks"; seed 004 "自定义 UI (rootComponent)").

Run: ``.venv/bin/python bench/customui.py`` (``--lines 2000 --runs 15``). Needs Playwright and
/usr/bin/chromium (the full browser, headless; tests/browser runs the headless shell when it is
installed).

Generates a TSX world of about 2,000 lines (20 files: components with props interfaces,
generics, enums, ``as`` casts, JSX with Tailwind classes, imports between the files with and
without extensions, an ``index.ts`` barrel) and, in headless Chromium, times what the sandbox
does before the first render: ``FabulaCompile.compile`` (static/js/compile.js over the vendored
sucrase: types stripped, JSX, ES modules to the loader's require/exports) and
``FabulaCompile.bundle`` (one script of module factories). Prints the median of cold runs
(one per fresh page: what a player's sandbox pays, the compiler's code not yet optimised by the
JIT) and of warm runs in one page (the studio editor recompiling as the creator types), against
the baseline of V8 merely parsing the compiled output (``new Function`` on the bundle: the
least any in-browser pipeline pays for that much code).

Target: compile + bundle < 300 ms, cold median. The bridge round-trip (target < 5 ms median)
is measured on the conformance world's play page (:func:`bridge_round_trip_ms`). Exits 1 when
a measured target is missed.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
SCRIPTS = ("static/vendor/sucrase/sucrase.min.js", "static/js/compile.js")
COMPILE_TARGET_MS = 300.0
ROUND_TRIP_TARGET_MS = 5.0

COMPONENT = """import {{ clamp, Tone, type Range }} from "./lib";
import {{ Badge{prev_import} }} from "./parts/part{prev}";

export interface Card{n}Props {{
  title: string;
  values: readonly number[];
  tone?: Tone;
  onPick?: (index: number) => void;
}}

type Row{n}<T> = {{ key: string; value: T }};

function rows{n}<T extends number>(values: readonly T[], range: Range): Row{n}<T>[] {{
  return values.map((value, i) => ({{ key: "r" + i, value: clamp(value, range) as T }}));
}}

export function Card{n}({{ title, values, tone = Tone.Calm, onPick }}: Card{n}Props) {{
  const api = useYumina();
  const [open, setOpen] = React.useState<boolean>(false);
  const range: Range = {{ min: 0, max: Number(api.variables["max{n}"] ?? 100) }};
  const list = React.useMemo(() => rows{n}(values, range), [values, range.max]);
  return (
    <section className="flex flex-col gap-2 rounded-lg bg-[#1a1a2e] p-4 text-[#e0e0e0]">
      <header className="flex items-center justify-between">
        <h2 className="text-lg font-semibold">{{title}}</h2>
        <Badge label={{tone}} />
        <button className="px-2 py-1 text-sm" onClick={{() => setOpen(!open)}}>
          {{open ? "Hide" : "Show"}}
        </button>
      </header>
{body}
    </section>
  );
}}
"""
ROW = """      {{open && list.length > {i} ? (
        <p key="{i}" className="m-0 text-sm opacity-80" onClick={{() => onPick?.({i})}}>
          {{list[{i}].key}}: {{(list[{i}].value as number).toFixed(1)}}
        </p>
      ) : null}}"""
LIB = """export interface Range { min: number; max: number }
export enum Tone { Calm = "calm", Tense = "tense" }
export const clamp = <T extends number>(v: T, r: Range): number =>
  Math.min(r.max, Math.max(r.min, v));
"""
BADGE = """export function Badge({ label }: { label: string }) {
  return <span className="rounded bg-red-500 px-2 text-xs">{label}</span>;
}
"""


def generate_world(lines: int, files: int = 20) -> dict[str, str]:
    """``files`` component files of about ``lines / files`` lines each, an entry and a barrel."""
    world: dict[str, str] = {"lib/index.ts": LIB, "parts/part0.tsx": BADGE}
    rows = max(1, (lines // files - 35) // 5)
    for n in range(1, files + 1):
        prev_import = f", Card{n - 1}" if n > 1 else ""
        body = "\n".join(ROW.format(i=i) for i in range(rows))
        world[f"parts/part{n}.tsx"] = COMPONENT.format(
            n=n, prev=n - 1, prev_import=prev_import, body=body
        )
    cards = "\n".join(
        f'      <Card{n} title="Card {n}" values={{[1, 2, 3]}} />' for n in range(1, files + 1)
    )
    imports = "\n".join(f'import {{ Card{n} }} from "./parts/part{n}";' for n in (1, files))
    world["index.tsx"] = (
        f"{imports}\nimport * as Parts from './parts/part{files // 2}.tsx';\n\n"
        "export default function App(): JSX.Element {\n  const C = Parts as any;\n"
        f'  return (\n    <main className="flex flex-col gap-4">\n{cards}\n'
        "      <Chat />\n    </main>\n  );\n}\n"
    )
    return world


MEASURE = """([files, runs]) => {
  const times = [], bundles = [];
  let result, bundle;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    result = window.FabulaCompile.compile(files, { entry: "index.tsx" });
    const t1 = performance.now();
    bundle = window.FabulaCompile.bundle(result.modules);
    times.push(performance.now() - t0);
    bundles.push(performance.now() - t1);
  }
  const parse = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    // A fresh comment each time: V8 would otherwise answer from its compilation cache.
    const code = bundle.code.replace("window.FabulaSandbox.define", "function () {}");
    new Function("// run " + i + "\\n" + code);
    parse.push(performance.now() - t0);
  }
  return { times, bundles, parse, errors: result.errors, bytes: bundle.code.length };
}"""


def measure_compile(page: Any, world: dict[str, str], runs: int) -> dict[str, Any]:
    result: dict[str, Any] = page.evaluate(MEASURE, [world, runs])
    return result


def bridge_round_trip_ms(browser: Any, calls: int = 100) -> list[float]:
    """Round trips of one useYumina() call from the sandbox to the host page and back (ms), on
    the conformance world's play page (bench/customui_bridge.py serves it)."""
    import tempfile

    from customui_bridge import ROUND_TRIPS  # bench/ is this script's directory

    from tests.browser.servers import conformance_server, open_conformance_page

    with tempfile.TemporaryDirectory() as tmp, conformance_server(Path(tmp)) as server:
        page, _ = open_conformance_page(browser, server)
        frame = next(f for f in page.frames if "/play/ui/" in f.url)
        times: list[float] = frame.evaluate(ROUND_TRIPS, [calls, 55])
        page.context.close()
    return times


def report(
    world: dict[str, str], result: dict[str, Any], colds: list[float], trips: list[float] | None
) -> bool:
    lines = sum(source.count("\n") + 1 for source in world.values())
    warm = result["times"][1:] or result["times"]
    median = statistics.median(warm)
    cold = statistics.median(colds)
    parse = statistics.median(result["parse"][1:] or result["parse"])
    print(f"world: {len(world)} files, {lines} lines of TSX/TS, bundle {result['bytes']:,} bytes")
    if result["errors"]:
        print(f"compile errors: {json.dumps(result['errors'])[:400]}")
        return False
    print(
        f"compile + bundle: cold (a fresh page, as a player's sandbox) median {cold:.1f} ms "
        f"of {len(colds)} pages (max {max(colds):.1f}); "
        f"warm median {median:.1f} ms of {len(warm)} runs"
    )
    print(f"  of which bundle: median {statistics.median(result['bundles']):.2f} ms")
    ratio = f"{median / parse:.0f}x" if parse > 0 else "n/a (below the timer's resolution)"
    print(f"baseline (V8 parse of the output): median {parse:.2f} ms; compile/parse {ratio}")
    ratio = f"{cold / parse:.0f}x" if parse > 0 else "n/a"
    print(f"  cold/parse {ratio}")
    ok = cold < COMPILE_TARGET_MS
    print(f"target compile < {COMPILE_TARGET_MS:.0f} ms (cold median): {'met' if ok else 'MISSED'}")
    if trips is None:
        print(f"bridge round-trip: not measured yet (target < {ROUND_TRIP_TARGET_MS:.0f} ms)")
    else:
        trip = statistics.median(trips)
        print(f"bridge round-trip: median {trip:.2f} ms of {len(trips)} calls")
        ok = ok and trip < ROUND_TRIP_TARGET_MS
    return ok


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--lines", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--pages", type=int, default=5)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    world = generate_world(args.lines)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"]
        )
        colds: list[float] = []
        for _ in range(args.pages):
            page = fresh_page(browser)
            colds.append(measure_compile(page, world, 1)["times"][0])
            page.close()
        page = fresh_page(browser)
        result = measure_compile(page, world, args.runs)
        trips = bridge_round_trip_ms(browser)
        browser.close()
    sys.exit(0 if report(world, result, colds, trips) else 1)


def fresh_page(browser: Any) -> Any:
    """A new page with the compiler loaded and nothing compiled yet (no warm JIT)."""
    page = browser.new_page()
    page.set_content("<!doctype html><title>bench</title>")
    for script in SCRIPTS:
        page.add_script_tag(path=str(ROOT / script))
    return page


if __name__ == "__main__":
    main()
