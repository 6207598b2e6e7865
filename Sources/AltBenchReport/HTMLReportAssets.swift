/// The HTML report's own CSS and JavaScript, inlined into every report (no file or network
/// load). The script only sorts tables, filters and pages the gallery; the page is complete
/// without it. It reads data-* attributes and never inserts HTML.
enum HTMLReportAssets {
    static let css = """
        :root { color-scheme: light; --ink: #1a1a1a; --muted: #5c5c5c; --line: #d4d4d4; --flag: #b3261e; --ok: #1b6e3a; }
        body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink); margin: 0 auto; padding: 1rem 1.5rem 4rem; max-width: 1200px; overflow-wrap: break-word; }
        @media (max-width: 500px) { body { padding: 0.8rem 0.8rem 3rem; } }
        h1 { font-size: 1.5rem; margin: 0.5rem 0; } h2 { font-size: 1.2rem; margin-top: 2rem; border-bottom: 1px solid var(--line); }
        h3 { font-size: 1rem; margin: 0 0 0.3rem; word-break: break-word; }
        dl { display: grid; grid-template-columns: max-content 1fr; gap: 0.1rem 1rem; margin: 0.5rem 0; }
        dt { color: var(--muted); } dd { margin: 0; word-break: break-word; }
        .banner { padding: 0.6rem 0.8rem; border: 2px solid; border-radius: 4px; }
        .banner.mock { border-color: #8a4b00; background: #fff4e5; } .banner.incomplete { border-color: var(--flag); background: #fdecea; }
        ul.best li { margin: 0.2rem 0; }
        table.cost td:nth-child(n+4) { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
        tfoot td { font-weight: 600; border-top: 2px solid #999; } ul.notes li { margin: 0.2rem 0; }
        .table-scroll { overflow-x: auto; max-width: 100%; margin: 0.5rem 0; }
        table { border-collapse: collapse; margin: 0; font-size: 0.92rem; }
        th, td { border: 1px solid var(--line); padding: 0.25rem 0.5rem; text-align: left; vertical-align: top; }
        th { background: #f3f3f3; } table.sortable th { cursor: pointer; } th[aria-sort] { background: #e4e4e4; }
        td[data-sort] { text-align: right; font-variant-numeric: tabular-nums; }
        table.matrix td:not(:first-child) { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
        .verdict-better { color: var(--ok); font-weight: 600; } .verdict-worse { color: var(--flag); font-weight: 600; }
        .charts { display: flex; flex-wrap: wrap; gap: 1rem; } .charts figure { margin: 0; min-width: 0; max-width: 100%; }
        .charts svg { max-width: 100%; height: auto; border: 1px solid var(--line); }
        .filters { display: flex; flex-wrap: wrap; gap: 0.6rem 1rem; align-items: center; margin: 0.5rem 0 1rem; }
        .filters label, .filters select, .filters input[type=search] { max-width: 100%; }
        .card { display: grid; grid-template-columns: 220px minmax(0, 1fr); gap: 0.5rem 1rem; border: 1px solid var(--line); border-radius: 6px; padding: 0.8rem; margin: 0 0 1rem; }
        .card > * { min-width: 0; } .card .answers-scroll { grid-column: 1 / -1; margin: 0; } .card .answers { width: 100%; }
        td.members ul { list-style: none; margin: 0; padding: 0; } td.members li { white-space: nowrap; }
        .thumb { max-width: min(220px, 100%); max-height: 220px; object-fit: contain; background: #f3f3f3; }
        .facts, .tags { color: var(--muted); font-size: 0.85rem; } .problem { color: var(--flag); }
        tr.flagged td.text { background: #fff7f6; } tr.failed td { color: var(--flag); }
        .form-only { color: var(--flag); cursor: help; }
        .flag { display: inline-block; border: 1px solid var(--flag); color: var(--flag); border-radius: 3px; padding: 0 0.3rem; margin: 0 0.2rem 0.2rem 0; font-size: 0.8rem; }
        td.text { white-space: pre-wrap; word-break: break-word; max-width: 60ch; }
        pre { white-space: pre-wrap; overflow-wrap: anywhere; background: #f6f6f6; padding: 0.6rem; border-radius: 4px; }
        details { margin: 0.4rem 0; } button { font: inherit; padding: 0.3rem 0.8rem; }
        @media (max-width: 700px) { .card { grid-template-columns: minmax(0, 1fr); } }
        """

    static let script = """
        (function () {
          "use strict";
          // Sort a table by a column: numbers by data-sort, text otherwise.
          document.querySelectorAll("table.sortable").forEach(function (table) {
            table.querySelectorAll("th").forEach(function (th, column) {
              th.addEventListener("click", function () {
                var ascending = th.getAttribute("aria-sort") !== "ascending";
                table.querySelectorAll("th").forEach(function (other) { other.removeAttribute("aria-sort"); });
                th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
                var body = table.tBodies[0];
                var rows = Array.prototype.slice.call(body.rows);
                rows.sort(function (a, b) {
                  var x = a.cells[column], y = b.cells[column];
                  var nx = x && x.dataset.sort !== undefined ? parseFloat(x.dataset.sort) : NaN;
                  var ny = y && y.dataset.sort !== undefined ? parseFloat(y.dataset.sort) : NaN;
                  var order = (!isNaN(nx) && !isNaN(ny)) ? nx - ny : (x ? x.textContent : "").localeCompare(y ? y.textContent : "");
                  return ascending ? order : -order;
                });
                rows.forEach(function (row) { body.appendChild(row); });
              });
            });
          });

          // Filter and page the gallery.
          var cards = Array.prototype.slice.call(document.querySelectorAll("article.card"));
          var filters = document.getElementById("filters");
          var more = document.getElementById("more");
          var count = document.getElementById("filter-count");
          var pageSize = \(HTMLReport.pageSize), shown = pageSize;
          // A select's first option is "all" (any value), whatever its text.
          function value(id) {
            var element = document.getElementById(id);
            if (!element) { return ""; }
            if (element.tagName === "SELECT") { return element.selectedIndex <= 0 ? "" : element.value; }
            return element.value;
          }
          // The card's own text (id, references, answers), lower-cased once.
          var texts = new Map();
          function searchable(card) {
            if (!texts.has(card)) { texts.set(card, (card.textContent || "").toLowerCase()); }
            return texts.get(card);
          }
          function apply() {
            var variant = value("filter-variant"), limit = value("filter-limit"), check = value("filter-check");
            var text = value("filter-text").trim().toLowerCase();
            var disagree = document.getElementById("filter-disagree");
            var onlyDisagree = disagree && disagree.checked;
            var matching = 0;
            cards.forEach(function (card) {
              var rows = Array.prototype.slice.call(card.querySelectorAll("tr.answer"));
              var visibleRows = 0;
              rows.forEach(function (row) {
                // A row is one answer and every variant and limit that gave it: it matches when
                // one of them has the variant and the limit asked for.
                var given = !(variant || limit) || Array.prototype.some.call(row.querySelectorAll("li[data-variant]"), function (member) {
                  return (!variant || member.dataset.variant === variant) && (!limit || member.dataset.limit === limit);
                });
                var ok = given && (!check || (" " + row.dataset.checks + " ").indexOf(" " + check + " ") >= 0);
                row.hidden = !ok;
                if (ok) { visibleRows += 1; }
              });
              var ok = (rows.length === 0 ? !(variant || limit || check) : visibleRows > 0) &&
                (!onlyDisagree || card.dataset.disagree === "1") &&
                (!text || searchable(card).indexOf(text) >= 0);
              card.dataset.match = ok ? "1" : "0";
              if (ok) { matching += 1; }
            });
            var index = 0;
            cards.forEach(function (card) {
              var visible = card.dataset.match === "1" && index < shown;
              if (card.dataset.match === "1") { index += 1; }
              card.hidden = !visible;
            });
            if (count) { count.textContent = matching + " of " + cards.length + " images"; }
            if (more) { more.hidden = matching <= shown; }
          }
          if (filters) {
            filters.hidden = false;
            filters.addEventListener("input", function () { shown = pageSize; apply(); });
            filters.addEventListener("change", function () { shown = pageSize; apply(); });
          }
          if (more) { more.addEventListener("click", function () { shown += pageSize; apply(); }); }
          apply();
        })();
        """
}
