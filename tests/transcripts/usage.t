# A bad option is a usage error that names it: exit status 2, nothing runs.
@@ args --no-such-option -c 'SELECT 1'
@@ stdout
@@ stderr
error: unknown or ambiguous option '--no-such-option' (suql --help lists them)
@@ status 2
