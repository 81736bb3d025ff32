CREATE TABLE m (reviews []IMARY);
