-- Six reviews tagged for build/llmserver's rules (tests/engine/choice-rules.json): a
-- constrained answer given as offered, another spelling, none, or a hedge. Used by
-- tests/engine/cases/choice-topk.case.
CREATE TABLE t (id INTEGER PRIMARY KEY, review FREE_TEXT, price ENUM('cheap', 'moderate', 'expensive'));
INSERT INTO t VALUES (1, 'TAG-cheap: bowls for eight dollars.', 'cheap'),
                     (2, 'TAG-dear: the tasting menu is a splurge.', 'cheap'),
                     (3, 'TAG-cheap: a bargain lunch.', 'moderate'),
                     (4, 'TAG-none: we only had coffee.', 'cheap'),
                     (5, 'TAG-hedge: hard to say.', 'expensive'),
                     (6, 'TAG-dear: pricey wine list.', 'expensive');
