# Issue 12, item 7: JSON "\u0000x" was stored as "" after "imported 1 row". The escape is
# refused at its place in the file, for JSON and JSONL alike; nothing is imported.
@@ db demo
@@ gen
printf '[{"a":"\\u0000x","b":1}]\n' >nul.json
printf '{"a":"fine"}\n{"a":"x\\u0000y"}\n' >nul.jsonl
@@ args -c ":import nul.json t" -c ":import nul.jsonl u" $DB
@@ status 1
@@ stderr has error: -c:1: nul.json:1:8: a NUL character (\\u0000) in a string: SQLite would cut the text short there; remove it
@@ stderr has error: -c:1: nul.jsonl:2:8: a NUL character (\\u0000) in a string
@@ unchanged
