SELECT ($x)::int, (:y)::text, (@z)::bool FROM t WHERE (?1)::real > 0;
