#!/usr/bin/env python3
"""Checks the DOM Chromium rendered from a `strata-bench report` page against the run's CSV
(stdlib only): the run table shows every row's cells exactly as the CSV has them, every bar of the
throughput and latency charts is the median of its rows, the facts (rows, lost readings) are the
CSV's, and nothing in the page refers to another resource. Exit 1 with one line per mismatch."""
import csv
import statistics
import sys
from html.parser import HTMLParser

TABLE_COLUMNS = ["workload", "engine", "strategy", "writers", "batch_size", "encryption", "durability",
                 "repetition", "readings", "readings_per_s", "transactions_per_s", "commit_p50_us",
                 "commit_p99_us", "e2e_p50_us", "file_bytes_end", "file_bytes_peak",
                 "file_bytes_compacted", "compact_ms", "lost", "verified"]
CHARTS = {"throughput": "readings_per_s", "commit_p50_us": "commit_p50_us",
          "commit_p99_us": "commit_p99_us", "e2e_p50_us": "e2e_p50_us"}


class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.table_rows = []      # run-table: list of {col: text}
        self.bars = []            # (figure id, category, series, value)
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
        if tag == "table" and a.get("id") == "run-table":
            self.in_table = True
        if self.in_table and tag == "tr":
            self.row = {}
        if self.in_table and tag == "td":
            self.cell = [a.get("data-col"), ""]
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


def main():
    dom_path, run_path = sys.argv[1], sys.argv[2]
    page = Page()
    with open(dom_path, encoding="utf-8") as handle:
        page.feed(handle.read())
    with open(run_path, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    problems = []
    if page.external:
        problems.append(f"the page refers to other resources: {page.external[:5]}")
    columns = [c for c in TABLE_COLUMNS if rows and c in rows[0]]
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
    for problem in problems:
        print("check-report: " + problem, file=sys.stderr)
    if problems:
        return 1
    print(f"check-report: {len(page.table_rows)} rows x {len(columns)} columns and {checked} bars match {run_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
