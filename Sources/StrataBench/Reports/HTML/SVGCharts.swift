// Charts for the HTML report, drawn as inline SVG (no script, no network): grouped bars and
// lines. Each mark carries its exact value (`data-value`, and a <title> people see on hover), so
// a test can check what is drawn against the CSV.

import Foundation

enum SVGCharts {
    /// Colours of series that are not engines (an engine's colour is its registered one).
    static let palette = ["#9467bd", "#8c564b", "#e377c2", "#bcbd22", "#17becf", "#393b79"]

    /// The colour of the `index`-th series named `name`: its engine's, else the palette's.
    static func colour(_ name: String, index: Int) -> String {
        Engines.colour(name) ?? palette[index % palette.count]
    }

    /// Vertical grouped bars: one group per category, one bar per series. A missing value draws
    /// no bar. `logScale` for quantities spanning decades (throughput, latency).
    static func groupedBars(title: String, unit: String, categories: [String], series: [String],
                            values: [String: [String: Double]], logScale: Bool, id: String) -> String {
        let width = max(320.0, Double(categories.count * max(series.count, 1)) * 22 + Double(categories.count) * 18 + 90)
        let height = 260.0, left = 64.0, right = 10.0, top = 40.0, bottom = 64.0
        let plotHeight = height - top - bottom
        let present = values.values.flatMap(\.values).filter { $0.isFinite && (!logScale || $0 > 0) }
        var svg = "<figure class=\"chart\" id=\(HTML.attribute(id))><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(height))\" role=\"img\">"
        svg += titleLines(title, x: width / 2)
        guard let high = present.max(), high > 0 else {
            return svg + "<text x=\"\(Int(width / 2))\" y=\"120\" text-anchor=\"middle\">no data</text></svg></figure>\n"
        }
        let low = logScale ? (present.min() ?? high) : 0
        let axisLow = logScale ? pow(10, floor(log10(low))) : 0
        let axisHigh = logScale ? pow(10, ceil(log10(high * 1.0001))) : niceCeiling(high)
        func y(_ value: Double) -> Double {
            let fraction = logScale ? (log10(value) - log10(axisLow)) / (log10(axisHigh) - log10(axisLow))
                : (value - axisLow) / (axisHigh - axisLow)
            return top + plotHeight * (1 - min(max(fraction, 0), 1))
        }
        // Axis with ticks.
        let ticks: [Double] = logScale
            ? stride(from: log10(axisLow), through: log10(axisHigh), by: 1).map { pow(10, $0) }
            : (0...4).map { axisHigh * Double($0) / 4 }
        for tick in ticks {
            let ty = y(tick)
            svg += "<line x1=\"\(Int(left))\" x2=\"\(Int(width - right))\" y1=\"\(ty)\" y2=\"\(ty)\" class=\"grid\"/>"
            svg += "<text x=\"\(Int(left - 4))\" y=\"\(ty + 4)\" text-anchor=\"end\" class=\"tick\">\(HTML.text(HTML.short(tick)))</text>"
        }
        svg += "<text x=\"12\" y=\"\(Int(top + plotHeight / 2))\" transform=\"rotate(-90 12 \(Int(top + plotHeight / 2)))\" text-anchor=\"middle\" class=\"tick\">\(HTML.text(unit + (logScale ? " (log)" : "")))</text>"
        let groupWidth = (width - left - right) / Double(max(categories.count, 1))
        let barWidth = min(22, (groupWidth - 8) / Double(max(series.count, 1)))
        for (categoryIndex, category) in categories.enumerated() {
            let groupLeft = left + groupWidth * Double(categoryIndex) + (groupWidth - barWidth * Double(series.count)) / 2
            for (seriesIndex, name) in series.enumerated() {
                guard let value = values[category]?[name], value.isFinite, !logScale || value > 0 else { continue }
                let x = groupLeft + barWidth * Double(seriesIndex)
                let barTop = y(value)
                let base = logScale ? top + plotHeight : y(0)
                svg += "<g class=\"bar\" data-category=\(HTML.attribute(category)) data-series=\(HTML.attribute(name)) data-value=\(HTML.attribute(CSVNumber.format(value)))>"
                svg += "<title>\(HTML.text("\(name), \(category): \(CSVNumber.format(value)) \(unit)"))</title>"
                svg += "<rect x=\"\(x)\" y=\"\(barTop)\" width=\"\(barWidth - 2)\" height=\"\(max(base - barTop, 1))\" fill=\"\(colour(name, index: seriesIndex))\"/>"
                svg += "<text x=\"\(x + (barWidth - 2) / 2)\" y=\"\(barTop - 3)\" text-anchor=\"middle\" class=\"value\">\(HTML.text(HTML.short(value)))</text></g>"
            }
            // One word per line: long categories ("sqlite compaction unsafe") never overlap.
            let words = category.split(separator: " ").map(String.init)
            for (line, word) in words.prefix(3).enumerated() {
                svg += "<text x=\"\(left + groupWidth * (Double(categoryIndex) + 0.5))\" y=\"\(Int(height - bottom + 14) + 11 * line)\" text-anchor=\"middle\" class=\"tick\">\(HTML.text(word))</text>"
            }
        }
        for (seriesIndex, name) in series.enumerated() {
            let x = left + Double(seriesIndex) * 110
            svg += "<rect x=\"\(x)\" y=\"\(Int(height - 20))\" width=\"10\" height=\"10\" fill=\"\(colour(name, index: seriesIndex))\"/>"
            svg += "<text x=\"\(x + 14)\" y=\"\(Int(height - 11))\" class=\"tick\">\(HTML.text(name))</text>"
        }
        return svg + "</svg></figure>\n"
    }

    /// Lines over a shared x axis (e.g. file size over elapsed time), one per series.
    static func lines(title: String, xUnit: String, yUnit: String, series: [(name: String, points: [(x: Double, y: Double)])],
                      id: String, width: Double = 360, height: Double = 200) -> String {
        let left = 60.0, right = 10.0, top = 40.0, bottom = 40.0
        var svg = "<figure class=\"chart\" id=\(HTML.attribute(id)) data-title=\(HTML.attribute(title))><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(height))\" role=\"img\">"
        svg += titleLines(title + " — " + yUnit, x: width / 2)
        let all = series.flatMap(\.points).filter { $0.x.isFinite && $0.y.isFinite }
        guard let maxX = all.map(\.x).max(), let maxY = all.map(\.y).max(), maxY > 0 else {
            return svg + "<text x=\"\(Int(width / 2))\" y=\"100\" text-anchor=\"middle\">no data</text></svg></figure>\n"
        }
        let axisX = max(maxX, 1), axisY = niceCeiling(maxY)
        func px(_ x: Double) -> Double { left + (width - left - right) * x / axisX }
        func py(_ y: Double) -> Double { top + (height - top - bottom) * (1 - y / axisY) }
        for index in 0...4 {
            let value = axisY * Double(index) / 4
            svg += "<line x1=\"\(Int(left))\" x2=\"\(Int(width - right))\" y1=\"\(py(value))\" y2=\"\(py(value))\" class=\"grid\"/>"
            svg += "<text x=\"\(Int(left - 4))\" y=\"\(py(value) + 4)\" text-anchor=\"end\" class=\"tick\">\(HTML.text(HTML.short(value)))</text>"
        }
        svg += "<text x=\"\(Int(width / 2))\" y=\"\(Int(height - 22))\" text-anchor=\"middle\" class=\"tick\">\(HTML.text(xUnit + " (0 to " + HTML.short(axisX) + ")"))</text>"
        for (index, line) in series.enumerated() {
            let color = colour(line.name, index: index)
            let path = line.points.filter { $0.x.isFinite && $0.y.isFinite }.map { "\(px($0.x)),\(py($0.y))" }.joined(separator: " ")
            let last = line.points.last.map { CSVNumber.format($0.y) } ?? ""
            let peak = line.points.map(\.y).max().map { CSVNumber.format($0) } ?? ""
            svg += "<g class=\"line\" data-series=\(HTML.attribute(line.name)) data-points=\"\(line.points.count)\" data-last=\(HTML.attribute(last)) data-peak=\(HTML.attribute(peak))><title>\(HTML.text("\(line.name): last \(last) \(yUnit)"))</title>"
            svg += "<polyline fill=\"none\" stroke=\"\(color)\" stroke-width=\"1.5\" points=\"\(path)\"/></g>"
            svg += "<rect x=\"\(left + Double(index) * 100)\" y=\"\(Int(height - 14))\" width=\"10\" height=\"10\" fill=\"\(color)\"/>"
            svg += "<text x=\"\(left + Double(index) * 100 + 14)\" y=\"\(Int(height - 5))\" class=\"tick\">\(HTML.text(line.name))</text>"
        }
        return svg + "</svg></figure>\n"
    }

    /// Lines on log–log axes (a figure against store size), one per series, each point a mark
    /// with its x and value. Points at or below zero cannot be drawn on a log axis and are left out.
    static func logLogLines(title: String, xUnit: String, yUnit: String, series: [(name: String, points: [(x: Double, y: Double)])],
                            id: String, width: Double = 360, height: Double = 220) -> String {
        let left = 60.0, right = 12.0, top = 40.0, bottom = 52.0
        var svg = "<figure class=\"chart\" id=\(HTML.attribute(id)) data-title=\(HTML.attribute(title))><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(height))\" role=\"img\">"
        svg += titleLines(title, x: width / 2)
        let drawable = series.map { (name: $0.name, points: $0.points.filter { $0.x > 0 && $0.y > 0 && $0.x.isFinite && $0.y.isFinite }) }
        let all = drawable.flatMap(\.points)
        guard let lowX = all.map(\.x).min(), let highX = all.map(\.x).max(),
              let lowY = all.map(\.y).min(), let highY = all.map(\.y).max() else {
            return svg + "<text x=\"\(Int(width / 2))\" y=\"100\" text-anchor=\"middle\">no data</text></svg></figure>\n"
        }
        // Decades that hold every point (at least one decade wide).
        let x0 = floor(log10(lowX)), x1 = Swift.max(ceil(log10(highX * 1.0001)), x0 + 1)
        let y0 = floor(log10(lowY)), y1 = Swift.max(ceil(log10(highY * 1.0001)), y0 + 1)
        func px(_ x: Double) -> Double { left + (width - left - right) * (log10(x) - x0) / (x1 - x0) }
        func py(_ y: Double) -> Double { top + (height - top - bottom) * (1 - (log10(y) - y0) / (y1 - y0)) }
        for decade in stride(from: y0, through: y1, by: 1) {
            let y = py(pow(10, decade))
            svg += "<line x1=\"\(Int(left))\" x2=\"\(Int(width - right))\" y1=\"\(y)\" y2=\"\(y)\" class=\"grid\"/>"
            svg += "<text x=\"\(Int(left - 4))\" y=\"\(y + 4)\" text-anchor=\"end\" class=\"tick\">\(HTML.text(HTML.short(pow(10, decade))))</text>"
        }
        for decade in stride(from: x0, through: x1, by: 1) {
            let x = px(pow(10, decade))
            svg += "<line x1=\"\(x)\" x2=\"\(x)\" y1=\"\(Int(top))\" y2=\"\(Int(height - bottom))\" class=\"grid\"/>"
            svg += "<text x=\"\(x)\" y=\"\(Int(height - bottom + 12))\" text-anchor=\"middle\" class=\"tick\">\(HTML.text(HTML.short(pow(10, decade))))</text>"
        }
        svg += "<text x=\"\(Int(width / 2))\" y=\"\(Int(height - bottom + 24))\" text-anchor=\"middle\" class=\"tick\">\(HTML.text(xUnit + " (log)"))</text>"
        svg += "<text x=\"12\" y=\"\(Int(top + (height - top - bottom) / 2))\" transform=\"rotate(-90 12 \(Int(top + (height - top - bottom) / 2)))\" text-anchor=\"middle\" class=\"tick\">\(HTML.text(yUnit + " (log)"))</text>"
        for (index, line) in drawable.enumerated() {
            let color = colour(line.name, index: index)
            let path = line.points.map { "\(px($0.x)),\(py($0.y))" }.joined(separator: " ")
            svg += "<g class=\"scale-line\" data-series=\(HTML.attribute(line.name)) data-points=\"\(line.points.count)\">"
            svg += "<polyline fill=\"none\" stroke=\"\(color)\" stroke-width=\"1.5\" points=\"\(path)\"/>"
            for point in line.points {
                svg += "<circle class=\"point\" cx=\"\(px(point.x))\" cy=\"\(py(point.y))\" r=\"2.5\" fill=\"\(color)\" data-x=\(HTML.attribute(CSVNumber.format(point.x))) data-value=\(HTML.attribute(CSVNumber.format(point.y)))><title>\(HTML.text("\(line.name), \(CSVNumber.format(point.x)) \(xUnit): \(CSVNumber.format(point.y)) \(yUnit)"))</title></circle>"
            }
            svg += "</g>"
            svg += "<rect x=\"\(left + Double(index) * 90)\" y=\"\(Int(height - 14))\" width=\"10\" height=\"10\" fill=\"\(color)\"/>"
            svg += "<text x=\"\(left + Double(index) * 90 + 14)\" y=\"\(Int(height - 5))\" class=\"tick\">\(HTML.text(line.name))</text>"
        }
        return svg + "</svg></figure>\n"
    }

    /// The title, split at " — " into two centred lines.
    static func titleLines(_ title: String, x: Double) -> String {
        let parts = title.components(separatedBy: " — ")
        var svg = ""
        for (index, part) in parts.prefix(2).enumerated() {
            svg += "<text x=\"\(Int(x))\" y=\"\(14 + 13 * index)\" text-anchor=\"middle\" class=\"title\">\(HTML.text(part))</text>"
        }
        return svg
    }

    /// 1, 2, 2.5 or 5 × a power of ten, at least `value`.
    static func niceCeiling(_ value: Double) -> Double {
        guard value > 0 else { return 1 }
        let power = pow(10, floor(log10(value)))
        for step in [1.0, 2, 2.5, 5, 10] where step * power >= value { return step * power }
        return 10 * power
    }
}
