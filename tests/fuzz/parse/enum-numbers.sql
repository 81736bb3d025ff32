CREATE TABLE restau(a ENUM(1, 2));
