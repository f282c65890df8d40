#!/usr/bin/env python3
"""Checks the DOM Chromium rendered from a `strata-bench report` page against the run's CSV
(stdlib only): the run table shows every row's cells exactly as the CSV has them, every bar of the
throughput and latency charts is the median of its rows, the facts (rows, lost readings) are the
CSV's, and nothing in the page refers to another resource. With the run's timeline (RUN.timeline.csv
beside the run, as the report finds it), every file-size line holds the timeline's points: their
count, last and peak value. The encryption and compaction bars, and the scale charts' points
(each figure against store size), are the medians of their rows.
Exit 1 with one line per mismatch."""
import math
import os
import re
import csv
import statistics
import sys
from html.parser import HTMLParser

# The run table shows the columns the page names (each cell's data-col); whichever they are, each
# must be a CSV column with the CSV's value, and these must be among them: what identifies a case
# and whether it kept its readings.
REQUIRED_TABLE_COLUMNS = ["workload", "engine", "strategy", "encryption", "durability", "repetition", "lost", "verified"]
# The scale charts (ScaleHTMLSection.figures): figure name -> (op, column); each is drawn per
# durability as `scale-<name>-<durability>`, a point per engine and store size.
SCALE_FIGURES = {"fill-rate": ("fill", "ops_per_s"), "bytes-per-object": ("fill", "bytes_per_object"),
                 "first-open": ("first-open", "us_per_op"), "commit-full-p50": ("commit-full", "commit_p50_us"),
                 "commit-full-p99": ("commit-full", "commit_p99_us"), "commit-unsafe-p50": ("commit-unsafe", "commit_p50_us"),
                 "commit-unsafe-p99": ("commit-unsafe", "commit_p99_us"), "compact": ("compact", "compact_ms")}
SCALE_FIGURES.update({"read-" + op: (op, "us_per_op") for op in (
    "iterate-one", "iterate-all", "sum", "avg", "min", "max", "filter-0.1pct", "filter-10pct", "filter-90pct",
    "top-100", "pk-lookup", "seq-equal", "seq-range", "list-traversal")})
CHARTS = {"throughput": "readings_per_s", "commit_p50_us": "commit_p50_us",
          "commit_p99_us": "commit_p99_us", "e2e_p50_us": "e2e_p50_us"}


class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.table_rows = []      # run-table: list of {col: text}
        self.bars = []            # (figure id, category, series, value)
        self.scale_points = []    # (figure id, series, x, value)
        self.scale_series = None
        self.lines = []           # (figure title, series, points, last, peak, polyline vertices)
        self.figure_title = None
        self.facts = {}
        self.external = []
        self.figure = None
        self.in_table = False
        self.cell = None
        self.row = None
        self.fact = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for name in ("src", "href"):
            if name in a and not (a[name] or "").startswith(("#", "data:")):
                self.external.append(f"<{tag} {name}={a[name]}>")
        if tag in ("script", "link", "iframe", "img", "object", "embed"):
            self.external.append(f"<{tag}>")
        if tag == "figure":
            self.figure = a.get("id", "")
            self.figure_title = a.get("data-title")
        if tag == "g" and a.get("class") == "line":
            self.lines.append([self.figure_title, a.get("data-series"), a.get("data-points"), a.get("data-last"),
                               a.get("data-peak"), None])
        if tag == "polyline" and self.lines and self.lines[-1][5] is None:
            self.lines[-1][5] = len((a.get("points") or "").split())
        if tag == "table" and a.get("id") == "run-table":
            self.in_table = True
        if self.in_table and tag == "tr":
            self.row = {}
        if self.in_table and tag == "td":
            self.cell = [a.get("data-col"), ""]
        if tag == "g" and a.get("class") == "scale-line":
            self.scale_series = a.get("data-series")
        if tag == "circle" and a.get("class") == "point":
            self.scale_points.append((self.figure, self.scale_series, a.get("data-x"), a.get("data-value")))
        if tag == "g" and a.get("class") == "bar":
            self.bars.append((self.figure, a.get("data-category"), a.get("data-series"), a.get("data-value")))
        if tag == "dd" and "data-fact" in a:
            self.fact = [a["data-fact"], ""]

    def handle_endtag(self, tag):
        if tag == "table" and self.in_table:
            self.in_table = False
        if self.in_table and tag == "td" and self.cell:
            self.row[self.cell[0]] = self.cell[1]
            self.cell = None
        if self.in_table and tag == "tr" and self.row is not None:
            if self.row:
                self.table_rows.append(self.row)
            self.row = None
        if tag == "dd" and self.fact:
            self.facts[self.fact[0]] = self.fact[1]
            self.fact = None
        if tag == "figure":
            self.figure = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell[1] += data
        if self.fact is not None:
            self.fact[1] += data


def number(text):
    """The CSV cell as the harness parses it (None when it is not a number)."""
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def close(shown, expected):
    value = number(shown)
    return value is not None and abs(value - expected) <= 1e-6 * max(1.0, abs(expected))


def check_grouped_bars(page, figure, expected, problems):
    """expected: {(category, series): median}; every bar drawn in `figure` and none missing."""
    drawn = {(c, s): v for f, c, s, v in page.bars if f == figure}
    if set(drawn) != set(expected):
        problems.append(f"{figure}: bars drawn {sorted(drawn)}, the CSV has {sorted(expected)}")
    for key in set(drawn) & set(expected):
        if not close(drawn[key], expected[key]):
            problems.append(f"{figure} {key[1]}/{key[0]}: bar {drawn[key]}, median of the CSV {expected[key]}")
    return len(set(drawn) & set(expected))


def medians(rows, column, key):
    groups = {}
    for row in rows:
        value = number(row.get(column))
        if value is None or not math.isfinite(value):
            continue
        groups.setdefault(key(row), []).append(value)
    return {k: statistics.median(v) for k, v in groups.items()}


def check_encryption_and_compaction(page, rows, problems):
    """The encryption chart (readings/s per engine and durability, key off and on) and the two
    compaction charts (bytes before and after, time) of the workloads that compact a file."""
    encrypted = [r for r in rows if r["workload"] == "encryption"]
    expected = {(engine_durability, "encryption " + encryption): value for (engine_durability, encryption), value in
                medians(encrypted, "readings_per_s", lambda r: (r["engine"] + " " + r["durability"], r["encryption"])).items()}
    checked = check_grouped_bars(page, "encryption", expected, problems)
    compacted = [r for r in rows if r["workload"] in ("compaction", "pinned-growth", "bulk-insert")
                 and number(r.get("file_bytes_compacted")) is not None]
    key = lambda r: " ".join([r["engine"], r["workload"], r["durability"]])
    expected = {}
    for column, label in (("file_bytes_peak", "before (peak)"), ("file_bytes_compacted", "after compaction")):
        expected.update({(k, label): v for k, v in medians(compacted, column, key).items()})
    checked += check_grouped_bars(page, "compaction-bytes", expected, problems)
    expected = {(k, "compact ms"): v for k, v in medians(compacted, "compact_ms", key).items()}
    checked += check_grouped_bars(page, "compaction-time", expected, problems)
    return checked


def check_scale_points(page, rows, problems):
    """Every point of the scale charts is the median of its rows (engine, size, durability) and
    every such median is drawn."""
    scale = [r for r in rows if r.get("workload") == "scale" and r.get("op")]
    expected = {}
    for name, (op, column) in SCALE_FIGURES.items():
        for (durability, engine, objects), value in medians([r for r in scale if r["op"] == op], column,
                                                            lambda r: (r["durability"], r["engine"], number(r.get("objects")))).items():
            if objects and objects > 0 and value > 0:
                expected[(f"scale-{name}-{durability}", engine, objects)] = value
    drawn = {(f, s, number(x)): v for f, s, x, v in page.scale_points}
    if set(drawn) != set(expected):
        problems.append(f"scale points: drawn {sorted(set(drawn) ^ set(expected))[:5]} differ from the CSV's")
    for key in set(drawn) & set(expected):
        if not close(drawn[key], expected[key]):
            problems.append(f"{key[0]} {key[1]} at {key[2]:g} objects: point {drawn[key]}, median of the CSV {expected[key]}")
    return len(set(drawn) & set(expected))


def check_file_size_lines(page, timeline, problems):
    """The report's panels: repetition 1, one per workload (and strategy, for the sensors and
    read-while-write workloads), durability and encryption; a line per engine; the first 32 panels."""
    panels, points = [], {}
    for row in timeline:
        if row.get("repetition") != "1" or row.get("workload") in ("bulk-insert", "encryption"):
            continue
        elapsed, size = number(row.get("elapsed_ms")), number(row.get("file_bytes"))
        if elapsed is None or size is None:
            continue
        strategy = row.get("strategy", "") if row["workload"] in ("sensors", "read-while-write") else ""
        title = " ".join(p for p in (row["workload"], strategy, row.get("durability", ""),
                                     "enc on" if row.get("encryption") == "on" else "") if p)
        if title not in points:
            panels.append(title)
            points[title] = {}
        points[title].setdefault(row.get("engine", ""), []).append(size)
    expected = {(t, e): ys for t in panels[:32] for e, ys in points[t].items()}
    drawn = {(t, s): (n, last, peak, vertices) for t, s, n, last, peak, vertices in page.lines}
    if set(drawn) != set(expected):
        problems.append(f"file-size lines: drawn {sorted(drawn)}, the timeline has {sorted(expected)}")
    for key in set(drawn) & set(expected):
        n, last, peak, vertices = drawn[key]
        ys = expected[key]
        finite = sum(1 for y in ys if math.isfinite(y))
        if n != str(len(ys)) or vertices != finite:
            problems.append(f"file-size {key}: {n} points ({vertices} drawn), the timeline has {len(ys)}")
        if not close(last, ys[-1]) or not close(peak, max(ys)):
            problems.append(f"file-size {key}: last {last} peak {peak}, the timeline has last {ys[-1]:g} peak {max(ys):g}")
    return len(set(drawn) & set(expected))


def check(dom, rows, timeline):
    """(problems, summary) of one rendered page against the run's rows and timeline (or None)."""
    page = Page()
    page.feed(dom)
    problems = []
    if page.external:
        problems.append(f"the page refers to other resources: {page.external[:5]}")
    shown_columns = []
    for shown in page.table_rows:
        shown_columns += [c for c in shown if c not in shown_columns]
    columns = [c for c in shown_columns if rows and c in rows[0]]
    for column in shown_columns:
        if rows and column not in rows[0]:
            problems.append(f"run table: column {column!r} is not in the CSV")
    for column in REQUIRED_TABLE_COLUMNS:
        if rows and column in rows[0] and column not in shown_columns:
            problems.append(f"run table: column {column!r} is not shown")
    if len(page.table_rows) != len(rows):
        problems.append(f"run table: {len(page.table_rows)} rows shown, the CSV has {len(rows)}")
    for index, (shown, row) in enumerate(zip(page.table_rows, rows)):
        for column in columns:
            if shown.get(column) != row[column]:
                problems.append(f"run table row {index + 1} {column}: shown {shown.get(column)!r}, CSV {row[column]!r}")
    checked = 0
    for figure, category, series, value in page.bars:
        prefix = next((p for p in CHARTS if figure and figure.startswith(p + "-")), None)
        if prefix is None:
            continue
        durability, encryption = figure[len(prefix) + 1:].split("-", 1)
        column = CHARTS[prefix]
        values = [float(r[column]) for r in rows
                  if r["workload"] == "sensors" and r["strategy"] == category and r["engine"] == series
                  and r["durability"] == durability and r["encryption"] == encryption and r[column] not in ("", None)]
        if not values:
            problems.append(f"{figure}: a bar for {series}/{category} that the CSV has no value for")
            continue
        expected = statistics.median(values)
        if abs(float(value) - expected) > 1e-6 * max(1.0, abs(expected)):
            problems.append(f"{figure} {series}/{category}: bar {value}, median of the CSV {expected}")
        checked += 1
    expected_bars = {(r["durability"], r["encryption"], r["strategy"], r["engine"]) for r in rows
                     if r["workload"] == "sensors" and r.get("readings_per_s")}
    drawn = {tuple(f[len("throughput-"):].split("-", 1)) + (c, s) for f, c, s, _ in page.bars if f and f.startswith("throughput-")}
    if drawn != expected_bars:
        problems.append(f"throughput bars: drawn {sorted(drawn)}, the CSV has {sorted(expected_bars)}")
    if page.facts.get("rows") != str(len(rows)):
        problems.append(f"facts: rows {page.facts.get('rows')!r}, the CSV has {len(rows)}")
    lost = sum(float(r["lost"]) for r in rows)
    if float(page.facts.get("lost readings", "nan")) != lost:
        problems.append(f"facts: lost readings {page.facts.get('lost readings')!r}, the CSV has {lost:g}")
    checked += check_encryption_and_compaction(page, rows, problems)
    checked += check_scale_points(page, rows, problems)
    lines = 0
    if timeline is not None:
        lines = check_file_size_lines(page, timeline, problems)
    elif page.lines:
        problems.append("file-size lines drawn, but there is no timeline beside the run")
    return problems, f"{len(page.table_rows)} rows x {len(columns)} columns, {checked} bars and scale points and {lines} file-size lines"


# One altered value per kind of mark: the check must notice each (a check that cannot fail proves nothing).
ALTERATIONS = [
    ("a run-table cell", r'(data-col="readings_per_s"[^>]*>)([0-9.]+)'),
    ("a throughput bar", r'(id="throughput-[^"]*".*?class="bar"[^>]*data-value=")([0-9.]+)'),
    ("an encryption bar", r'(id="encryption".*?class="bar"[^>]*data-value=")([0-9.]+)'),
    ("a compaction bar", r'(id="compaction-bytes".*?class="bar"[^>]*data-value=")([0-9.]+)'),
    ("a file-size line's peak", r'(data-peak=")([0-9.]+)'),
    ("a scale point", r'(class="point"[^>]*data-value=")([0-9.]+)'),
]


def alter(dom, pattern):
    """The page with the first match's number changed by 0.1% (None when the page has no such mark)."""
    match = re.search(pattern, dom, flags=re.S)
    if not match:
        return None
    changed = formatted(float(match.group(2)) * 1.001 + 1)
    return dom[:match.start(2)] + changed + dom[match.end(2):]


def formatted(value):
    return repr(round(value, 6))


def main():
    dom_path, run_path = sys.argv[1], sys.argv[2]
    with open(dom_path, encoding="utf-8") as handle:
        dom = handle.read()
    with open(run_path, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    timeline_path = run_path[:-4] + ".timeline.csv" if run_path.endswith(".csv") else run_path + ".timeline.csv"
    timeline = None
    if os.path.exists(timeline_path):
        with open(timeline_path, newline="", encoding="utf-8") as handle:
            timeline = list(csv.DictReader(handle))
    problems, summary = check(dom, rows, timeline)
    for problem in problems:
        print("check-report: " + problem, file=sys.stderr)
    if problems:
        return 1
    caught = []
    for name, pattern in ALTERATIONS:
        altered = alter(dom, pattern)
        if altered is None:
            continue
        if not check(altered, rows, timeline)[0]:
            print(f"check-report: {name} changed by 0.1% went unnoticed: the check is broken", file=sys.stderr)
            return 1
        caught.append(name)
    print(f"check-report: {summary} match {run_path}; altered, each of {', '.join(caught)} was noticed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
