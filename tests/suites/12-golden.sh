#!/bin/sh
# Golden tests: each SUQL form, the queries of the SUQL papers, plain SQLite normalisation
# and error messages with their carets (tests/golden/*.txt, format in tests/golden/README).
exec "$SUQL_BUILD/suqlc" --golden tests/golden/*.txt
