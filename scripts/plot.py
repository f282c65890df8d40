#!/usr/bin/env python3
"""Turn a strata-bench run into PNG charts.

    python3 scripts/plot.py RUN.csv [--timeline TIMELINE.csv] [--baseline BASELINE.csv] --out DIR

Charts (one PNG each, in DIR):
  throughput.png             readings/s per strategy and engine, log scale (median over repetitions)
  latency.png                commit p50/p99 and end-to-end p50 per strategy and engine, log scale
  file_size.png              file size over time per case (needs the timeline CSV; default: RUN.timeline.csv)
  encryption_compaction.png  encryption overhead (off vs on) and compaction (size before/after, time)
  baseline_ratio.png         current / baseline per case for the gated metrics (with --baseline)

Only the standard library and matplotlib are used. Empty cells mean "not measured" and are skipped.
"""
import argparse
import csv
import os
import statistics
import sys
from collections import OrderedDict, defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

STRATEGY_ORDER = ["main-sync", "main-async", "gcd", "threads", "dedicated", "batched", "async"]
ENGINE_COLORS = {"strata": "#1f77b4", "sqlite": "#ff7f0e"}
KEY_COLUMNS = ["workload", "engine", "strategy", "writers", "batch_size", "encryption", "durability", "rate", "max_delay_ms"]


def read_csv(path):
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            return list(csv.DictReader(handle))
    except OSError as error:
        sys.exit(f"plot.py: cannot read {path}: {error.strerror}")


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


def human_bytes(value, _position=None):
    """Tick label for a byte count: plain decimal units (1 MB = 10^6 bytes), short."""
    for unit, scale in [("GB", 1e9), ("MB", 1e6), ("kB", 1e3)]:
        if abs(value) >= scale:
            text = f"{value / scale:.1f}".rstrip("0").rstrip(".")
            return f"{text} {unit}"
    return f"{value:.0f} B"


def subtitle(rows):
    first = rows[0] if rows else {}
    parts = [first.get("host", ""), first.get("cpu_model", ""), f"{first.get('cores', '?')} cores",
             first.get("build", ""), first.get("git_rev", ""), first.get("timestamp", "")]
    return "  ·  ".join(p for p in parts if p)


def grouped_bars(ax, strategies, engines, values, fmt="{:.0f}"):
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
            ax.annotate(fmt.format(y), (bar.get_x() + bar.get_width() / 2, y), ha="center", va="bottom",
                        fontsize=8, xytext=(0, 2), textcoords="offset points")
    ax.set_xticks(range(len(strategies)))
    ax.set_xticklabels(strategies)


def plot_throughput(rows, out):
    sensors = [r for r in rows if r["workload"] == "sensors"] or [r for r in rows if r["workload"] == "read-while-write"]
    if not sensors:
        return None
    strategies = strategy_sort({r["strategy"] for r in sensors})
    engines = sorted({r["engine"] for r in sensors})
    values = median_by(sensors, lambda r: (r["engine"], r["strategy"]), "readings_per_s")
    fig, ax = plt.subplots(figsize=(10, 5.5))
    grouped_bars(ax, strategies, engines, values)
    ax.set_yscale("log")
    ax.set_ylabel("readings per second (log scale, median)")
    ax.set_title(f"Sensors workload: throughput per writer strategy\n{subtitle(rows)}", fontsize=10)
    ax.legend(title="engine")
    ax.grid(axis="y", which="both", alpha=0.3)
    path = os.path.join(out, "throughput.png")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_latency(rows, out):
    sensors = [r for r in rows if r["workload"] == "sensors"]
    if not sensors:
        return None
    strategies = strategy_sort({r["strategy"] for r in sensors})
    engines = sorted({r["engine"] for r in sensors})
    metrics = [("commit_p50_us", "commit p50"), ("commit_p99_us", "commit p99"), ("e2e_p50_us", "end-to-end p50")]
    fig, axes = plt.subplots(1, len(metrics), figsize=(15, 5), sharey=True)
    for ax, (column, title) in zip(axes, metrics):
        values = median_by(sensors, lambda r: (r["engine"], r["strategy"]), column)
        grouped_bars(ax, strategies, engines, values, fmt="{:.0f}")
        ax.set_yscale("log")
        ax.set_title(title)
        ax.tick_params(axis="x", rotation=30)
        ax.grid(axis="y", which="both", alpha=0.3)
    axes[0].set_ylabel("microseconds (log scale, median)")
    axes[0].legend(title="engine")
    fig.suptitle(f"Sensors workload: latency per writer strategy\n{subtitle(rows)}", fontsize=10)
    path = os.path.join(out, "latency.png")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_file_size(timeline, rows, out):
    if not timeline:
        return None
    series = OrderedDict()
    for point in timeline:
        if point.get("repetition") not in ("1", None):
            continue
        if point["workload"] in ("bulk-insert", "encryption"):
            continue  # straight lines; their end sizes are in the summary and the compaction chart
        size = number(point, "file_bytes")
        elapsed = number(point, "elapsed_ms")
        if size is None or elapsed is None:
            continue
        label = f"{point['engine']} {point['strategy']}" if point["workload"] in ("sensors", "read-while-write") \
            else f"{point['engine']} enc {point['encryption']}"
        series.setdefault(point["workload"], OrderedDict()).setdefault(label, []).append((elapsed / 1000, size))
    if not series:
        return None
    workloads = list(series)
    fig, axes = plt.subplots(len(workloads), 1, figsize=(12, max(4.5, 3.4 * len(workloads))), squeeze=False)
    palette = plt.get_cmap("tab10")
    for ax, workload in zip(axes[:, 0], workloads):
        # Colour = strategy (or encryption), line style = engine: 12 lines stay distinguishable.
        kinds = []
        for label in series[workload]:
            kind = label.split(" ", 1)[1]
            if kind not in kinds:
                kinds.append(kind)
        for label, points in series[workload].items():
            engine, kind = label.split(" ", 1)
            xs, ys = zip(*points)
            ax.plot(xs, ys, label=label, linewidth=1.6, color=palette(kinds.index(kind) % 10),
                    linestyle="-" if engine == "strata" else "--")
        ax.set_title(f"{workload}: file size over time (repetition 1)", fontsize=10)
        ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(human_bytes))
        ax.yaxis.set_major_locator(matplotlib.ticker.MaxNLocator(nbins=6, steps=[1, 2, 2.5, 5, 10]))
        ax.set_ylim(bottom=0)
        ax.set_xlabel("seconds since the case started")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), title="solid: strata, dashed: sqlite",
                  title_fontsize=8)
    fig.suptitle(subtitle(rows), fontsize=9)
    path = os.path.join(out, "file_size.png")
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_encryption_compaction(rows, out):
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 5))
    encryption = [r for r in rows if r["workload"] == "encryption" or r.get("encryption") == "on"]
    speeds = median_by(encryption, lambda r: (r["engine"], r["workload"], r["encryption"]), "readings_per_s")
    labels = sorted({(e, w) for (e, w, _) in speeds})
    if labels:
        for i, (engine, workload) in enumerate(labels):
            for j, setting in enumerate(["off", "on"]):
                value = speeds.get((engine, workload, setting))
                if value:
                    bar = left.bar(i + (j - 0.5) * 0.4, value, 0.4, color="#2ca02c" if setting == "off" else "#d62728",
                                   label=f"encryption {setting}" if i == 0 else None)
                    left.annotate(f"{value:.0f}", (bar[0].get_x() + 0.2, value), ha="center", va="bottom", fontsize=8)
            off, on = speeds.get((engine, workload, "off")), speeds.get((engine, workload, "on"))
            if off and on:
                left.annotate(f"overhead x{off / on:.2f}", (i, max(off, on) * 1.08), ha="center", fontsize=9)
            elif off and not on:
                left.annotate("no encrypted run\n(engine has no encryption)", (i, off * 0.5), ha="center", fontsize=8)
        left.set_xlim(-0.7, len(labels) - 0.3)
        left.set_xticks(range(len(labels)))
        left.set_xticklabels([f"{e}\n{w}" for e, w in labels])
        left.set_ylabel("readings per second (median)")
        left.legend()
    else:
        left.text(0.5, 0.5, "no encryption rows in this run", ha="center", va="center")
    left.set_title("Encryption overhead")
    left.grid(axis="y", alpha=0.3)

    compaction = [r for r in rows if number(r, "file_bytes_compacted") is not None and r["workload"] in
                  ("compaction", "pinned-growth", "bulk-insert")]
    before = median_by(compaction, lambda r: (r["engine"], r["workload"]), "file_bytes_end")
    peak = median_by(compaction, lambda r: (r["engine"], r["workload"]), "file_bytes_peak")
    after = median_by(compaction, lambda r: (r["engine"], r["workload"]), "file_bytes_compacted")
    millis = median_by(compaction, lambda r: (r["engine"], r["workload"]), "compact_ms")
    keys = sorted(after)
    if keys:
        for i, key in enumerate(keys):
            left_value = max(before.get(key, 0), peak.get(key, 0))
            right.bar(i - 0.2, left_value, 0.4, color="#9467bd", label="before (peak)" if i == 0 else None)
            right.bar(i + 0.2, after[key], 0.4, color="#8c564b", label="after compaction" if i == 0 else None)
            right.annotate(f"{millis.get(key, 0):.0f} ms", (i + 0.2, after[key]), ha="center", va="bottom", fontsize=8)
        right.set_xticks(range(len(keys)))
        right.set_xticklabels([f"{e}\n{w}" for e, w in keys])
        right.set_yscale("log")
        right.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(human_bytes))
        right.legend()
    else:
        right.text(0.5, 0.5, "no compaction rows in this run", ha="center", va="center")
    right.set_title("Compaction: file size before / after (time on the bar)")
    right.grid(axis="y", which="both", alpha=0.3)
    fig.suptitle(subtitle(rows), fontsize=9)
    path = os.path.join(out, "encryption_compaction.png")
    fig.tight_layout(rect=(0, 0, 1, 0.96))
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_baseline(rows, baseline_rows, out, threshold):
    # Bars inside the band that `compare` treats as noise are grey; outside it, green or red.
    factor = 1 / (1 - threshold / 100)
    metrics = [("readings_per_s", "throughput", True, factor), ("commit_p50_us", "commit p50", False, factor),
               ("file_bytes_end", "file size", False, 1.10)]
    key = lambda r: "/".join([r.get("workload", ""), r.get("engine", ""), r.get("strategy", ""),
                              "enc-" + r.get("encryption", ""), r.get("durability", "")])
    cases = []
    for row in rows:
        if key(row) not in cases:
            cases.append(key(row))
    fig, axes = plt.subplots(1, len(metrics), figsize=(15, max(4, 0.35 * len(cases) + 1.5)), sharey=True)
    for ax, (column, title, higher_better, band) in zip(axes, metrics):
        now = median_by(rows, key, column)
        then = median_by(baseline_rows, key, column)
        ratios = [now[c] / then[c] if c in now and c in then and then[c] else None for c in cases]
        colors = []
        for ratio in ratios:
            if ratio is None:
                colors.append("#eeeeee")
            elif 1 / band <= ratio <= band:
                colors.append("#9e9e9e")
            else:
                better = ratio > 1 if higher_better else ratio < 1
                colors.append("#2ca02c" if better else "#d62728")
        ax.axvspan(1 / band, band, color="#f0f0f0", zorder=0)
        ax.barh(range(len(cases)), [r or 0 for r in ratios], color=colors, zorder=2)
        ax.axvline(1.0, color="black", linewidth=1, zorder=3)
        ax.set_title(f"{title}: current / baseline\n({'higher' if higher_better else 'lower'} is better; "
                     f"grey band x{band:.2f})", fontsize=10)
        for i, ratio in enumerate(ratios):
            ax.annotate("n/a" if ratio is None else f"{ratio:.2f}", (ratio or 0, i), va="center", fontsize=8,
                        xytext=(3, 0), textcoords="offset points")
        ax.grid(axis="x", alpha=0.3)
    axes[0].set_yticks(range(len(cases)))
    axes[0].set_yticklabels(cases, fontsize=8)
    axes[0].invert_yaxis()
    fig.suptitle(f"Current run vs baseline (medians; grey = inside the noise band compare accepts, "
                 f"green/red = outside it; timings of …/full cases are shown, not gated)\n{subtitle(rows)}", fontsize=9)
    path = os.path.join(out, "baseline_ratio.png")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def main():
    parser = argparse.ArgumentParser(description="Plot a strata-bench run as PNG charts.")
    parser.add_argument("run", help="summary CSV written by strata-bench run")
    parser.add_argument("--timeline", help="timeline CSV (default: RUN with .timeline.csv, if present)")
    parser.add_argument("--baseline", help="baseline summary CSV to compare with")
    parser.add_argument("--out", required=True, help="directory for the PNG files")
    parser.add_argument("--threshold", type=float, default=60.0,
                        help="compare's timing threshold in percent, for the noise band (default 60)")
    args = parser.parse_args()

    rows = read_csv(args.run)
    if not rows:
        sys.exit(f"plot.py: {args.run} has no data rows")
    missing = [c for c in ["workload", "engine", "strategy", "readings_per_s"] if c not in rows[0]]
    if missing:
        sys.exit(f"plot.py: {args.run} is not a strata-bench summary CSV (missing {', '.join(missing)})")
    timeline_path = args.timeline
    if timeline_path is None and args.run.endswith(".csv"):
        candidate = args.run[:-4] + ".timeline.csv"
        timeline_path = candidate if os.path.exists(candidate) else None
    timeline = read_csv(timeline_path) if timeline_path else []
    os.makedirs(args.out, exist_ok=True)

    written = [plot_throughput(rows, args.out), plot_latency(rows, args.out), plot_file_size(timeline, rows, args.out),
               plot_encryption_compaction(rows, args.out)]
    if args.baseline:
        written.append(plot_baseline(rows, read_csv(args.baseline), args.out, args.threshold))
    for path in written:
        if path:
            print(path)


if __name__ == "__main__":
    main()
