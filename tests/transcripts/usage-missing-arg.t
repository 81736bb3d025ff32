# An option without its argument is a usage error naming the option and its argument.
@@ args -c
@@ stdout
@@ stderr
error: option '-c' needs an argument (SQL)
@@ status 2
