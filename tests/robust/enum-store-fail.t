# Issue 12, item 6: an ENUM mapping that could not be stored (here: the database is opened
# read-only) is said, as a warning; the statement still uses it.
@@ db demo
@@ args -c "SELECT count(*) AS n FROM restaurants WHERE price = 'wallet friendly';" file:$DB?mode=ro
@@ status 0
@@ stderr has warning: the ENUM mapping of 'wallet friendly' for restaurants.price was not stored (attempt to write a readonly database): it serves this statement only
@@ stdout has | n |
@@ unchanged
