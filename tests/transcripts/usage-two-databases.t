# One database at most.
@@ args one.db two.db
@@ stdout
@@ stderr
error: one DATABASE at most, but also got 'two.db'
@@ status 2
