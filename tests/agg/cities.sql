CREATE TABLE r (id INTEGER PRIMARY KEY, city TEXT, review FREE_TEXT);
INSERT INTO r (city, review) VALUES
  ('Alto', 'PA1 Big lots behind the building.'), ('Alto', 'PA2 Always a space.'),
  ('Bay', 'PB1 Only street parking, circle for ages.'), ('Bay', 'PB2 No lot at all.'),
  ('Cove', 'PC1 A garage two blocks away, sometimes full.'),
  ('Dale', 'PD1 Parking is a nightmare on the street, we circled the block three times before giving up and walking from the station, which took a good while.'),
  ('Dale', 'PD2 The tiny lot has four spaces, always taken by the staff, so everyone ends up on the side streets where the meters run out after two hours.'),
  ('Dale', 'PD3 Valet was offered once but the line of cars blocked the road; most nights you simply park far away and walk back in the rain.');
