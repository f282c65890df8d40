#!/usr/bin/env python3
"""Turn a strata-bench run into PNG charts.

    python3 scripts/plot.py RUN.csv [--timeline TIMELINE.csv] [--comparison COMPARISON.csv] --out DIR

Charts (one PNG each, in DIR; a chart without data is not written):
  throughput.png             readings/s per strategy and engine, one panel per durability and
                             encryption (log scale, median over repetitions)
  latency.png                commit p50/p99 and end-to-end p50, one row of panels per durability
                             and encryption (log scale)
  file_size.png              file size over time, one small panel per case (engines overlaid),
                             from the timeline CSV (default: RUN.timeline.csv)
  encryption_compaction.png  throughput with the key off and on; size before/after compaction
                             (only the panels the run has data for)
  scale.png                  the scale workload: each figure against the store's size on log-log
                             axes (fill rate, bytes/object, first open, commit p50/p99 durable and
                             unsafe, compaction, each read's us/op), one line per engine in its
                             registry colour (dashed: a second durability), median over repetitions
  baseline_ratio.png         current / baseline per case and gated metric, coloured by the verdicts
                             of `strata-bench compare BASELINE RUN --format csv` (--comparison):
                             the script does not re-derive the gate's rules

Panels never mix durabilities or encryption settings: a median over `full` and `unsafe` rows is
neither figure. Only the standard library and matplotlib are used. Empty cells mean "not
measured" and are skipped.
"""
import argparse
import json
import subprocess
import csv
import os
import stat
import statistics
import sys
from collections import OrderedDict, defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.patches  # noqa: E402
import matplotlib.ticker  # noqa: E402

# The harness's vocabulary (engines with their colours, strategies and durabilities in report
# order) comes from `strata-bench list --json`, the registry the HTML report also draws from;
# `load_vocabulary` fills these before anything is plotted.
STRATEGY_ORDER = []
DURABILITY_ORDER = []
ENGINE_COLORS = {}
VERDICT_COLORS = OrderedDict([
    ("regressed", "#d62728"),
    ("improved", "#2ca02c"),
    ("unchanged", "#9e9e9e"),
    ("info", "#c6dbef"),
])
VERDICT_LABELS = {
    "regressed": "regressed (fails the gate)",
    "improved": "improved",
    "unchanged": "unchanged (within the gate's band)",
    "info": "shown, not gated (rule in compare's report)",
}
RATIO_METRICS = [("readings_per_s", "throughput"), ("commit_p50_us", "commit p50"), ("file_bytes_end", "file size at end")]


def fail(message):
    sys.exit(f"plot.py: {message}")


def load_vocabulary(path):
    """Reads `strata-bench list --json` from PATH, or runs the package's built strata-bench."""
    if path:
        try:
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
        except OSError as error:
            fail(f"--vocabulary {path}: {error.strerror}")
    else:
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        candidates = [os.path.join(root, ".build", config, "strata-bench") for config in ("release", "debug")]
        binary = next((c for c in candidates if os.access(c, os.X_OK)), None)
        if binary is None:
            fail("no vocabulary: give --vocabulary FILE (from `strata-bench list --json`) or build strata-bench")
        try:
            text = subprocess.run([binary, "list", "--json"], check=True, capture_output=True, text=True).stdout
        except (OSError, subprocess.CalledProcessError) as error:
            fail(f"{binary} list --json failed: {error}")
    try:
        vocabulary = json.loads(text)
        ENGINE_COLORS.update({engine["name"]: engine["colour"] for engine in vocabulary["engines"]})
        STRATEGY_ORDER.extend(strategy["name"] for strategy in vocabulary["strategies"])
        DURABILITY_ORDER.extend(vocabulary["durabilities"])
    except (ValueError, KeyError, TypeError) as error:
        fail(f"the vocabulary is not `strata-bench list --json` output ({error})")


def read_csv(path):
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            return list(csv.DictReader(handle))
    except OSError as error:
        fail(f"cannot read {path}: {error.strerror}")


def check_out_dir(path):
    """The output directory: absent (created) or a directory; never a file, link or device."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        try:
            os.makedirs(path)
        except OSError as error:
            fail(f"--out {path}: cannot create the directory: {error.strerror}")
        return
    if stat.S_ISLNK(mode):
        target = os.path.realpath(path)
        if not os.path.isdir(target):
            fail(f"--out {path}: is a symbolic link to something that is not a directory")
    elif not stat.S_ISDIR(mode):
        fail(f"--out {path}: exists and is not a directory")
    if not os.access(path, os.W_OK):
        fail(f"--out {path}: the directory is not writable")


def save(fig, out, name):
    """Writes DIR/name.png, refusing to replace anything but a regular file."""
    path = os.path.join(out, name)
    try:
        mode = os.lstat(path).st_mode
        if not stat.S_ISREG(mode):
            plt.close(fig)
            fail(f"{path} exists and is not a regular file; refusing to replace it")
    except FileNotFoundError:
        pass
    temporary = os.path.join(out, f".{name}.{os.getpid()}.tmp")
    fig.savefig(temporary, dpi=110, format="png")
    plt.close(fig)
    os.replace(temporary, path)
    return path


def number(row, column):
    value = (row.get(column) or "").strip()
    if not value:
        return None
    try:
        return float(value)
    except ValueError:
        return None


def median_by(rows, key, column):
    groups = defaultdict(list)
    for row in rows:
        value = number(row, column)
        if value is not None:
            groups[key(row)].append(value)
    return {k: statistics.median(v) for k, v in groups.items()}


def strategy_sort(strategies):
    return sorted(strategies, key=lambda s: (STRATEGY_ORDER.index(s) if s in STRATEGY_ORDER else 99, s))


def settings(rows):
    """(durability, encryption) pairs present, in a stable order."""
    pairs = {(r.get("durability", ""), r.get("encryption", "")) for r in rows}
    return sorted(pairs, key=lambda p: (DURABILITY_ORDER.index(p[0]) if p[0] in DURABILITY_ORDER else 9, p[1]))


def setting_title(durability, encryption):
    meaning = {"full": "flush per commit", "unsafe": "no flush per commit", "memory": "in memory"}.get(durability, "")
    return f"durability {durability} ({meaning}), encryption {encryption}"


def human_bytes(value, _position=None):
    """Tick label for a byte count: decimal units (1 MB = 10^6 bytes), short."""
    for unit, scale in [("GB", 1e9), ("MB", 1e6), ("kB", 1e3)]:
        if abs(value) >= scale:
            text = f"{value / scale:.1f}".rstrip("0").rstrip(".")
            return f"{text} {unit}"
    return f"{value:.0f} B"


def human_number(value):
    if value >= 1e6:
        return f"{value / 1e6:.2g}M" if value < 1e7 else f"{value / 1e6:.0f}M"
    if value >= 1e4:
        return f"{value / 1e3:.0f}k"
    if value >= 100:
        return f"{value:.0f}"
    return f"{value:.3g}"


def subtitle(rows):
    first = rows[0] if rows else {}
    parts = [first.get("host", ""), first.get("cpu_model", ""), f"{first.get('cores', '?')} cores",
             first.get("build", ""), first.get("git_rev", ""), first.get("timestamp", "")]
    if any(r.get("interrupted") == "true" for r in rows):
        parts.append("INTERRUPTED RUN (cases missing)")
    return "  ·  ".join(p for p in parts if p)


def grouped_bars(ax, strategies, engines, values):
    width = 0.8 / max(1, len(engines))
    for i, engine in enumerate(engines):
        xs, ys = [], []
        for j, strategy in enumerate(strategies):
            value = values.get((engine, strategy))
            if value is not None and value > 0:
                xs.append(j + (i - (len(engines) - 1) / 2) * width)
                ys.append(value)
        bars = ax.bar(xs, ys, width, label=engine, color=ENGINE_COLORS.get(engine))
        for bar, y in zip(bars, ys):
            ax.annotate(human_number(y), (bar.get_x() + bar.get_width() / 2, y), ha="center", va="bottom",
                        fontsize=7, xytext=(0, 2), textcoords="offset points")
    ax.set_xticks(range(len(strategies)))
    ax.set_xticklabels(strategies, rotation=25, ha="right", fontsize=8)


def sensors_rows(rows):
    return [r for r in rows if r.get("workload") == "sensors"] or [r for r in rows if r.get("workload") == "read-while-write"]


def plot_throughput(rows, out):
    sensors = sensors_rows(rows)
    if not sensors:
        return None
    panels = settings(sensors)
    engines = sorted({r["engine"] for r in sensors})
    fig, axes = plt.subplots(1, len(panels), figsize=(max(10, 6.5 * len(panels)), 5.2), squeeze=False)
    for ax, (durability, encryption) in zip(axes[0], panels):
        subset = [r for r in sensors if r.get("durability") == durability and r.get("encryption") == encryption]
        strategies = strategy_sort({r["strategy"] for r in subset})
        values = median_by(subset, lambda r: (r["engine"], r["strategy"]), "readings_per_s")
        grouped_bars(ax, strategies, engines, values)
        ax.set_yscale("log")
        ax.set_title(setting_title(durability, encryption), fontsize=9)
        ax.grid(axis="y", which="both", alpha=0.3)
    axes[0][0].set_ylabel("readings per second (log scale, median)")
    axes[0][0].legend(title="engine", fontsize=8)
    workload = sensors[0]["workload"]
    fig.suptitle(f"{workload}: throughput per writer strategy\n{subtitle(rows)}", fontsize=10)
    fig.tight_layout()
    return save(fig, out, "throughput.png")


def plot_latency(rows, out):
    sensors = sensors_rows(rows)
    if not sensors:
        return None
    panels = settings(sensors)
    engines = sorted({r["engine"] for r in sensors})
    metrics = [("commit_p50_us", "commit p50"), ("commit_p99_us", "commit p99"),
               ("e2e_p50_us", "end-to-end p50 (closed loop: window / throughput)")]
    fig, axes = plt.subplots(len(panels), len(metrics), figsize=(16, 4.6 * len(panels)), squeeze=False)
    for row_axes, (durability, encryption) in zip(axes, panels):
        subset = [r for r in sensors if r.get("durability") == durability and r.get("encryption") == encryption]
        strategies = strategy_sort({r["strategy"] for r in subset})
        for ax, (column, title) in zip(row_axes, metrics):
            values = median_by(subset, lambda r: (r["engine"], r["strategy"]), column)
            grouped_bars(ax, strategies, engines, values)
            ax.set_yscale("log")
            ax.set_title(f"{title}\n{setting_title(durability, encryption)}", fontsize=8)
            ax.grid(axis="y", which="both", alpha=0.3)
        row_axes[0].set_ylabel("microseconds (log scale, median)")
    axes[0][0].legend(title="engine", fontsize=8)
    fig.suptitle(f"{sensors[0]['workload']}: latency per writer strategy\n{subtitle(rows)}", fontsize=10)
    fig.tight_layout()
    return save(fig, out, "latency.png")


def plot_file_size(timeline, rows, out):
    """One small panel per case (workload, strategy, durability, encryption), engines overlaid:
    cases whose sizes coincide no longer hide each other's lines."""
    if not timeline:
        return None
    panels = OrderedDict()
    for point in timeline:
        if point.get("repetition") not in ("1", None):
            continue
        if point["workload"] in ("bulk-insert", "encryption"):
            continue  # straight lines; their end sizes are in the summary and the compaction chart
        size, elapsed = number(point, "file_bytes"), number(point, "elapsed_ms")
        if size is None or elapsed is None:
            continue
        strategy = point["strategy"] if point["workload"] in ("sensors", "read-while-write") else ""
        key = (point["workload"], strategy, point.get("durability", ""), point.get("encryption", ""))
        panels.setdefault(key, OrderedDict()).setdefault(point["engine"], []).append((elapsed / 1000, size))
    if not panels:
        return None
    keys = sorted(panels, key=lambda k: (k[0] != "sensors", k[0],
                                         DURABILITY_ORDER.index(k[2]) if k[2] in DURABILITY_ORDER else 9,
                                         STRATEGY_ORDER.index(k[1]) if k[1] in STRATEGY_ORDER else 99, k[3]))
    columns = min(4, len(keys))
    grid_rows = (len(keys) + columns - 1) // columns
    fig, axes = plt.subplots(grid_rows, columns, figsize=(4.2 * columns, 2.9 * grid_rows), squeeze=False)
    for ax in axes.flat[len(keys):]:
        ax.set_visible(False)
    for ax, key in zip(axes.flat, keys):
        workload, strategy, durability, encryption = key
        for engine, points in panels[key].items():
            xs, ys = zip(*points)
            ax.plot(xs, ys, label=engine, linewidth=1.5, color=ENGINE_COLORS.get(engine),
                    marker="." if len(points) < 4 else None)
        title = " ".join(p for p in [workload, strategy, durability, f"enc {encryption}" if encryption == "on" else ""] if p)
        ax.set_title(title, fontsize=8)
        ends = [points[-1][1] for points in panels[key].values() if points[-1][1] > 0]
        if len(ends) > 1 and max(ends) > 10 * min(ends):
            # One engine's file is ten times the other's (a pinned WAL): a log axis keeps both visible.
            ax.set_yscale("log")
            ax.set_title(title + " (log scale)", fontsize=8)
            ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(human_bytes))
        else:
            ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(human_bytes))
            ax.yaxis.set_major_locator(matplotlib.ticker.MaxNLocator(nbins=4, steps=[1, 2, 2.5, 5, 10]))
            ax.set_ylim(bottom=0)
        ax.tick_params(labelsize=7)
        ax.grid(alpha=0.3)
    handles = [plt.Line2D([], [], color=color, linewidth=2, label=engine) for engine, color in ENGINE_COLORS.items()
               if any(engine in panel for panel in panels.values())]
    fig.legend(handles=handles, loc="upper right", fontsize=8, title="engine")
    fig.supxlabel("seconds since the case started (repetition 1)", fontsize=9)
    fig.suptitle(f"File size over time, one panel per case\n{subtitle(rows)}", fontsize=10)
    fig.tight_layout(rect=(0, 0, 0.94, 1))
    return save(fig, out, "file_size.png")


def encryption_panel(ax, rows):
    encrypted = [r for r in rows if r.get("workload") == "encryption" or r.get("encryption") == "on"]
    speeds = median_by(encrypted, lambda r: (r["engine"], r["workload"], r.get("durability", ""), r["encryption"]),
                       "readings_per_s")
    labels = sorted({key[:3] for key in speeds})
    colors = {"off": "#2ca02c", "on": "#d62728"}
    for i, (engine, workload, durability) in enumerate(labels):
        off, on = speeds.get((engine, workload, durability, "off")), speeds.get((engine, workload, durability, "on"))
        for j, (setting, value) in enumerate([("off", off), ("on", on)]):
            if value:
                bar = ax.bar(i + (j - 0.5) * 0.4, value, 0.4, color=colors[setting])
                ax.annotate(human_number(value), (bar[0].get_x() + 0.2, value), ha="center", va="bottom", fontsize=8)
        if off and on:
            ax.annotate(f"off / on = {off / on:.2f}", (i, max(off, on) * 1.1), ha="center", fontsize=9)
        elif off:
            # In the empty "on" slot, upright, so it never covers the "off" bar's label.
            ax.annotate("no encryption\nin this engine", (i + 0.2, off * 0.05), ha="center", va="bottom", fontsize=7,
                        rotation=90, color="#555555")
    ax.set_xlim(-0.7, len(labels) - 0.3)
    ax.set_ylim(top=max(speeds.values()) * 1.3)
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels([f"{e}\n{w}\n{d}" for e, w, d in labels], fontsize=8)
    ax.set_ylabel("readings per second (median)")
    ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda value, _: human_number(value) if value else "0"))
    ax.legend(handles=[matplotlib.patches.Patch(color=colors[s], label=f"encryption {s}") for s in ("off", "on")])
    ax.set_title("Encryption: throughput with the key off and on")
    ax.grid(axis="y", alpha=0.3)


def compaction_panel(ax, rows):
    compaction = [r for r in rows if number(r, "file_bytes_compacted") is not None and r["workload"] in
                  ("compaction", "pinned-growth", "bulk-insert")]
    key = lambda r: (r["engine"], r["workload"], r.get("durability", ""))
    before = median_by(compaction, key, "file_bytes_end")
    peak = median_by(compaction, key, "file_bytes_peak")
    after = median_by(compaction, key, "file_bytes_compacted")
    millis = median_by(compaction, key, "compact_ms")
    keys = sorted(after)
    for i, k in enumerate(keys):
        ax.bar(i - 0.2, max(before.get(k, 0), peak.get(k, 0)), 0.4, color="#9467bd")
        ax.bar(i + 0.2, after[k], 0.4, color="#8c564b")
        ax.annotate(f"{millis.get(k, 0):.0f} ms", (i + 0.2, after[k]), ha="center", va="bottom", fontsize=8)
    ax.set_xticks(range(len(keys)))
    ax.set_xticklabels([f"{e}\n{w}\n{d}" for e, w, d in keys], fontsize=8)
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(human_bytes))
    ax.legend(handles=[matplotlib.patches.Patch(color="#9467bd", label="before (peak)"),
                       matplotlib.patches.Patch(color="#8c564b", label="after compaction (time on the bar)")])
    ax.set_title("Compaction: file size before / after")
    ax.grid(axis="y", which="both", alpha=0.3)


def plot_encryption_compaction(rows, out):
    has_encryption = any(r.get("workload") == "encryption" or r.get("encryption") == "on" for r in rows)
    has_compaction = any(number(r, "file_bytes_compacted") is not None and r["workload"] in
                         ("compaction", "pinned-growth", "bulk-insert") for r in rows)
    panels = [p for p, present in [(encryption_panel, has_encryption), (compaction_panel, has_compaction)] if present]
    if not panels:
        return None
    fig, axes = plt.subplots(1, len(panels), figsize=(max(10, 6.8 * len(panels)), 5.2), squeeze=False)
    for ax, panel in zip(axes[0], panels):
        panel(ax, rows)
    fig.suptitle(subtitle(rows), fontsize=9)
    fig.tight_layout(rect=(0, 0, 1, 0.96))
    return save(fig, out, "encryption_compaction.png")


# The scale figures, as the HTML report's (ScaleHTMLSection.figures): (title, op, column).
SCALE_FIGURES = [
    ("fill: objects/s", "fill", "ops_per_s"),
    ("bytes per object on disk", "fill", "bytes_per_object"),
    ("first open in a new process (µs)", "first-open", "us_per_op"),
    ("durable commit p50 (µs)", "commit-full", "commit_p50_us"),
    ("durable commit p99 (µs)", "commit-full", "commit_p99_us"),
    ("unsafe commit p50 (µs)", "commit-unsafe", "commit_p50_us"),
    ("unsafe commit p99 (µs)", "commit-unsafe", "commit_p99_us"),
    ("compaction (ms)", "compact", "compact_ms"),
] + [(f"{op} (µs/op)", op, "us_per_op") for op in (
    "iterate-one", "iterate-all", "sum", "avg", "min", "max", "filter-0.1pct", "filter-10pct", "filter-90pct",
    "top-100", "pk-lookup", "seq-equal", "seq-range", "list-traversal")]


def plot_scale(rows, out):
    scale = [r for r in rows if r.get("workload") == "scale" and r.get("op")]
    panels = []
    for title, op, column in SCALE_FIGURES:
        medians = median_by([r for r in scale if r["op"] == op],
                            lambda r: (r["engine"], r.get("durability", ""), number(r, "objects")), column)
        lines = defaultdict(list)
        for (engine, durability, objects), value in medians.items():
            if objects and objects > 0 and value > 0:
                lines[(engine, durability)].append((objects, value))
        if lines:
            panels.append((title, lines))
    if not panels:
        return None
    columns = 4
    rows_of_panels = (len(panels) + columns - 1) // columns
    fig, axes = plt.subplots(rows_of_panels, columns, figsize=(4.2 * columns, 3.3 * rows_of_panels), squeeze=False)
    engines = list(ENGINE_COLORS)
    durabilities = sorted({d for _, lines in panels for _, d in lines},
                          key=lambda d: DURABILITY_ORDER.index(d) if d in DURABILITY_ORDER else 99)
    for ax, (title, lines) in zip(axes.flat, panels):
        for (engine, durability) in sorted(lines, key=lambda k: (engines.index(k[0]) if k[0] in engines else 99, k[1])):
            points = sorted(lines[(engine, durability)])
            label = engine if len(durabilities) == 1 else f"{engine} ({durability})"
            ax.plot([x for x, _ in points], [y for _, y in points], marker="o", markersize=3,
                    color=ENGINE_COLORS.get(engine, "#333333"),
                    linestyle="-" if durability == durabilities[0] else "--", label=label)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(title, fontsize=9)
        ax.set_xlabel("objects", fontsize=8)
        ax.grid(which="both", alpha=0.3)
        ax.legend(fontsize=7)
    for ax in list(axes.flat)[len(panels):]:
        ax.axis("off")
    fig.suptitle("Scale: each figure against the store's size (log-log) — " + subtitle(rows), fontsize=9)
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    return save(fig, out, "scale.png")


def short_case(key):
    """A compare case key without its default parts (w1, b1, closed loop, d100)."""
    parts = [p for p in key.split("/") if p not in ("w1", "b1", "closed", "d100", "enc-off")]
    return " ".join(parts)


def plot_baseline(comparison, rows, out):
    """Current / baseline per case, coloured by compare's own verdict for that case and metric."""
    lines = [c for c in comparison if c.get("metric") in dict(RATIO_METRICS)]
    if not lines:
        return None
    cases = []
    for line in lines:
        if line["case"] not in cases:
            cases.append(line["case"])
    by_key = {(c["case"], c["metric"]): c for c in lines}
    absent = [c for c in comparison if c.get("verdict") in ("new", "missing")]
    fig, axes = plt.subplots(1, len(RATIO_METRICS), figsize=(16, max(4, 0.28 * len(cases) + 2.2)), sharey=True)
    for ax, (metric, title) in zip(axes, RATIO_METRICS):
        ratios, colors, hatches = [], [], []
        for case in cases:
            line = by_key.get((case, metric))
            ratio = number(line, "ratio") if line else None
            ratios.append(ratio)
            verdict = line.get("verdict") if line else None
            colors.append(VERDICT_COLORS.get(verdict, "#ffffff"))
            hatches.append("//" if verdict == "info" else "")
        # Bars grow from 1 (no change) to the ratio, left for smaller, right for larger.
        ax.barh(range(len(cases)), [(r - 1) if r else 0 for r in ratios], left=1, color=colors, zorder=2,
                edgecolor=["#6a8caf" if h else "none" for h in hatches])
        ax.set_xscale("log")
        known = [r for r in ratios if r]
        reach = max([1.5] + [max(r, 1 / r) for r in known]) * 1.15
        ax.set_xlim(1 / reach, reach)
        ax.xaxis.set_major_locator(matplotlib.ticker.FixedLocator(
            [t for t in [0.1, 0.25, 0.5, 0.67, 0.8, 1, 1.25, 1.5, 2, 4, 10] if 1 / reach <= t <= reach]))
        ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda value, _: f"{value:g}"))
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.axvline(1.0, color="black", linewidth=1, zorder=3)
        for i, ratio in enumerate(ratios):
            ax.annotate("n/a" if ratio is None else f"{ratio:.2f}", (ratio or 1, i), va="center", fontsize=7,
                        ha="left" if (ratio or 1) >= 1 else "right",
                        xytext=(3 if (ratio or 1) >= 1 else -3, 0), textcoords="offset points")
        better = "higher" if metric == "readings_per_s" else "lower"
        ax.set_title(f"{title}: current / baseline (log; {better} is better)", fontsize=9)
        ax.grid(axis="x", which="both", alpha=0.3)
        ax.tick_params(axis="x", labelsize=7)
    axes[0].set_yticks(range(len(cases)))
    axes[0].set_yticklabels([short_case(c) for c in cases], fontsize=7)
    axes[0].invert_yaxis()
    handles = [matplotlib.patches.Patch(color=color, label=VERDICT_LABELS[v]) for v, color in VERDICT_COLORS.items()]
    fig.legend(handles=handles, loc="lower center", ncol=4, fontsize=8)
    counts = defaultdict(int)
    for line in comparison:
        counts[line.get("verdict", "")] += 1
    summary = ", ".join(f"{counts[v]} {v}" for v in ["regressed", "improved", "unchanged", "info", "new", "missing"])
    extra = f"; cases not on both sides: {len(absent)}" if absent else ""
    fig.suptitle(f"Current run vs baseline: colours are compare's verdicts ({summary}{extra})\n{subtitle(rows)}",
                 fontsize=9)
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    return save(fig, out, "baseline_ratio.png")


def main():
    parser = argparse.ArgumentParser(description="Plot a strata-bench run as PNG charts.")
    parser.add_argument("run", help="summary CSV written by strata-bench run")
    parser.add_argument("--timeline", help="timeline CSV (default: RUN with .timeline.csv, if present)")
    parser.add_argument("--comparison",
                        help="output of `strata-bench compare BASELINE RUN --format csv`, for baseline_ratio.png")
    parser.add_argument("--out", required=True, help="directory for the PNG files")
    parser.add_argument("--vocabulary",
                        help="`strata-bench list --json` output (default: run the package's built strata-bench)")
    args = parser.parse_args()
    load_vocabulary(args.vocabulary)

    rows = read_csv(args.run)
    if not rows:
        fail(f"{args.run} has no data rows")
    missing = [c for c in ["workload", "engine", "strategy", "readings_per_s"] if c not in rows[0]]
    if missing:
        fail(f"{args.run} is not a strata-bench summary CSV (missing {', '.join(missing)})")
    comparison = []
    if args.comparison:
        comparison = read_csv(args.comparison)
        needed = [c for c in ["case", "metric", "ratio", "verdict"] if not comparison or c not in comparison[0]]
        if needed:
            fail(f"{args.comparison} is not `strata-bench compare --format csv` output (missing {', '.join(needed)})")
    timeline_path = args.timeline
    if timeline_path is None and args.run.endswith(".csv"):
        candidate = args.run[:-4] + ".timeline.csv"
        timeline_path = candidate if os.path.exists(candidate) else None
    timeline = read_csv(timeline_path) if timeline_path else []
    check_out_dir(args.out)

    written = [plot_throughput(rows, args.out), plot_latency(rows, args.out), plot_file_size(timeline, rows, args.out),
               plot_encryption_compaction(rows, args.out), plot_scale(rows, args.out)]
    if comparison:
        written.append(plot_baseline(comparison, rows, args.out))
    for path in written:
        if path:
            print(path)


if __name__ == "__main__":
    main()
