// Escaping for the HTML report: every text and attribute value from a CSV, a history or a
// comparison passes through `HTML.text` / `HTML.attribute`, so a cell such as `<script>` or
// `" onload="` is shown as written and never becomes markup.

public enum HTML {
    /// Text content: & < > escaped (and quotes, so the same string is safe in attributes too).
    public static func text(_ value: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(value.utf8.count)
        for scalar in value.unicodeScalars {
            switch scalar {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// An attribute value, quoted.
    public static func attribute(_ value: String) -> String { "\"" + text(value) + "\"" }

    /// A table: header cells and rows; `columns` (optional) names each column for `data-col`.
    static func table(id: String, header: [String], rows: [[String]], columns: [String]? = nil,
                      rowClasses: [String]? = nil) -> String {
        var html = "<table id=\(attribute(id))><thead><tr>"
        for cell in header { html += "<th>\(text(cell))</th>" }
        html += "</tr></thead><tbody>\n"
        for (index, row) in rows.enumerated() {
            let rowClass = rowClasses.map { $0[index].isEmpty ? "" : " class=\(attribute($0[index]))" } ?? ""
            html += "<tr\(rowClass)>"
            for (column, cell) in row.enumerated() {
                let name = columns.map { " data-col=\(attribute($0[column]))" } ?? ""
                html += "<td\(name)>\(text(cell))</td>"
            }
            html += "</tr>\n"
        }
        return html + "</tbody></table>\n"
    }

    /// A number for people: 12.3k, 4.56M, three significant digits.
    static func short(_ value: Double) -> String {
        let magnitude = abs(value)
        let (scaled, suffix): (Double, String) = magnitude >= 1e9 ? (value / 1e9, "G") : magnitude >= 1e6 ? (value / 1e6, "M")
            : magnitude >= 1e3 ? (value / 1e3, "k") : (value, "")
        let digits = abs(scaled) >= 100 ? 0 : abs(scaled) >= 10 ? 1 : 2
        return CSVNumber.format((scaled * pow10(digits)).rounded() / pow10(digits), digits: digits) + suffix
    }

    private static func pow10(_ digits: Int) -> Double { [1, 10, 100][digits] }
}
