# --timeout takes a number of seconds: anything else is a usage error before anything runs.
@@ args --timeout soon -c "SELECT 1;"
@@ status 2
@@ stderr has error: --timeout: timeout takes a number of seconds
