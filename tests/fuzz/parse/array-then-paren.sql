CREATE TABLE r (name TEXT, cuisines TEXT[](x) DEFAULT 1);
