# --set needs KEY=VALUE, and a key that exists.
@@ args --set mode=table --set nosuchkey=1 -c 'SELECT 1'
@@ stdout
@@ stderr
error: --set nosuchkey: unknown setting 'nosuchkey'
@@ status 2
