-- A small table in the shape of a HybridQA table (an invented country's flag bearers at
-- the Summer Olympics): each column with linked passages has a FREE_TEXT[] column
-- "<column>_Info" beside it. The bearers and their lives are invented for suql's tests.
CREATE TABLE olympics (
  "Event year" TEXT,
  "Event year_Info" FREE_TEXT[],
  "Name" TEXT,
  "Flag Bearer" TEXT,
  "Flag Bearer_Info" FREE_TEXT[],
  "Gender" TEXT,
  "Sport" TEXT
);
INSERT INTO olympics VALUES
('2004', '["The 2004 Summer Olympics were held in Athens, Greece, from 13 to 29 August 2004.", "Veldavia sent 41 athletes to Athens."]',
 'XXVIII', 'Tomas Reval',
 '["Tomas Reval (born 3 March 1976) is a Veldavian sprint canoeist.", "He competed in the men''s K-1 500 metres and finished ninth."]',
 'Male', 'Canoeing'),
('2008', '["The 2008 Summer Olympics were held in Beijing, China, in August 2008."]',
 'XXIX', 'Ilse Marun',
 '["Ilse Marun (born 17 June 1981) is a Veldavian swimmer.", "She swam the women''s 200 metre freestyle in Beijing."]',
 'Female', 'Swimming'),
('2012', '["The 2012 Summer Olympics were held in London, United Kingdom, from 27 July to 12 August 2012."]',
 'XXX', 'Dario Kovel',
 '["Dario Kovel (born 9 November 1985) is a Veldavian judoka.", "At the London Games he competed in the Men''s 100kg event and lost in the quarter-final."]',
 'Male', 'Judo'),
('2016', '["The 2016 Summer Olympics were held in Rio de Janeiro, Brazil, from 5 to 21 August 2016.", "It was the first Games held in South America."]',
 'XXXI', 'Mira Sandor',
 '["Mira Sandor (born 22 January 1990) is a Veldavian fencer.", "She fenced in the women''s individual sabre in Rio."]',
 'Female', 'Fencing'),
('2020', '["The 2020 Summer Olympics were held in Tokyo, Japan, in July and August 2021, a year late."]',
 'XXXII', 'Anton Velik',
 '["Anton Velik (born 5 May 1994) is a Veldavian weightlifter.", "He lifted in the men''s 96 kg class in Tokyo."]',
 'Male', 'Weightlifting');
