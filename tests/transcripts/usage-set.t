# --set needs KEY=VALUE, and a key that exists.
@@ args --set mode=table --set nosuchkey=1 -c 'SELECT 1'
@@ stdout
@@ stderr
error: --set nosuchkey: unknown setting 'nosuchkey' (a psql variable is set with -v nosuchkey=VALUE)
@@ status 2
