# --mode with an unknown mode is a usage error naming the modes.
@@ args --mode xml -c 'SELECT 1'
@@ stdout
@@ stderr
error: --mode: unknown mode 'xml' (table, box, csv, json, line, markdown, html, column, list, tabs, insert, quote)
@@ status 2
