# No input: nothing to do, nothing printed, exit status 0. Blank lines and comments alone
# run nothing either.
@@ stdin

-- only a comment
/* and a block
   comment */
@@ stdout
@@ stderr
@@ status 0
