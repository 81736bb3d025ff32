/*
 * gen_grammar.h: the vocabulary and sentence grammar of the scale generator (tools/gen.c).
 *
 * Templates are expanded by gen.c: {a|b|c} picks one alternative (they nest), and slots
 * are filled from the restaurant being written: $DISH and $DISH2 (two of its popular
 * dishes), $NAME, $CITY, $PERSON (who came along), $WHEN, $MIN (a number of minutes).
 *
 * The attribute phrases are what makes ground truth measurable. For each attribute and
 * each truth value there are four kinds of evidence:
 *   clear    says it outright                       ("perfect for a date night")
 *   weak     only hints at it                       ("the lighting is low")
 *   negated  says it by negating the opposite       ("we never had to wait")
 *   none     (no phrase at all)
 * Clear phrases for 1 always contain one of the attribute's keywords, and clear phrases for
 * 0 a negation or an explicit opposite, so tests can check the truth table against the
 * wording with LIKE. No neutral sentence uses an attribute's keywords.
 */
#ifndef GEN_GRAMMAR_H
#define GEN_GRAMMAR_H

typedef struct GenCity {
	const char *name, *area, *zips[3];
	int weight;         /* relative frequency */
	int parking;        /* chance of easy parking, percent */
	const char *streets[8];
} GenCity;

static const GenCity gen_cities[] = {
	{"Palo Alto", "650", {"94301", "94303", "94306"}, 8, 45,
	 {"University Ave", "Hamilton Ave", "California Ave", "El Camino Real", "Middlefield Rd",
	  "Alma St", "Emerson St", "Lytton Ave"}},
	{"San Francisco", "415", {"94110", "94109", "94133"}, 20, 15,
	 {"Valencia St", "Mission St", "Geary Blvd", "Irving St", "Columbus Ave", "Fillmore St",
	  "Haight St", "Clement St"}},
	{"Cupertino", "408", {"95014", "95014", "95014"}, 6, 75,
	 {"Stevens Creek Blvd", "De Anza Blvd", "Homestead Rd", "Wolfe Rd", "Blaney Ave",
	  "Bandley Dr", "Vallco Pkwy", "Mary Ave"}},
	{"Sunnyvale", "408", {"94086", "94087", "94085"}, 7, 65,
	 {"Murphy Ave", "El Camino Real", "Evelyn Ave", "Mathilda Ave", "Wolfe Rd", "Kiely Blvd",
	  "Fair Oaks Ave", "Washington Ave"}},
	{"Mountain View", "650", {"94041", "94040", "94043"}, 7, 45,
	 {"Castro St", "Villa St", "California St", "Shoreline Blvd", "Grant Rd", "Dana St",
	  "Moffett Blvd", "Rengstorff Ave"}},
	{"San Jose", "408", {"95112", "95125", "95128"}, 16, 60,
	 {"Santa Clara St", "San Carlos St", "Story Rd", "Tully Rd", "Lincoln Ave", "Winchester Blvd",
	  "1st St", "Alum Rock Ave"}},
	{"Menlo Park", "650", {"94025", "94025", "94025"}, 4, 60,
	 {"Santa Cruz Ave", "El Camino Real", "Middlefield Rd", "Ravenswood Ave", "Willow Rd",
	  "Oak Grove Ave", "Crane St", "Laurel St"}},
	{"Redwood City", "650", {"94061", "94063", "94062"}, 5, 50,
	 {"Broadway", "Middlefield Rd", "El Camino Real", "Jefferson Ave", "Main St", "Veterans Blvd",
	  "Woodside Rd", "Whipple Ave"}},
	{"Santa Clara", "408", {"95050", "95051", "95054"}, 6, 70,
	 {"El Camino Real", "Homestead Rd", "Saratoga Ave", "Lafayette St", "Franklin St",
	  "Stevens Creek Blvd", "Great America Pkwy", "Monroe St"}},
	{"Oakland", "510", {"94607", "94609", "94612"}, 10, 35,
	 {"Telegraph Ave", "Broadway", "Grand Ave", "Piedmont Ave", "College Ave", "Lakeshore Ave",
	  "International Blvd", "Webster St"}},
	{"Berkeley", "510", {"94704", "94709", "94710"}, 6, 30,
	 {"Shattuck Ave", "Telegraph Ave", "University Ave", "San Pablo Ave", "Solano Ave",
	  "College Ave", "Fourth St", "Durant Ave"}},
	{"Los Altos", "650", {"94022", "94024", "94022"}, 3, 70,
	 {"Main St", "State St", "San Antonio Rd", "Foothill Expy", "El Camino Real", "Grant Rd",
	  "First St", "Fremont Ave"}},
};

/* A kind of restaurant: its cuisines, dishes, names and prices. */
typedef struct GenConcept {
	const char *cuisines[3];       /* the first is always listed */
	const char *extra;             /* sometimes added as well */
	int weight;
	int price[4];                  /* weights of cheap, moderate, expensive, luxury */
	const char *dishes[10];
	const char *name_a[6], *name_b[6];
	int romantic, kids, vegan, happy;  /* adjustments to the base chances, percent */
} GenConcept;

static const GenConcept gen_concepts[] = {
	{{"sushi", "japanese"}, "seafood", 7, {10, 50, 35, 5},
	 {"salmon nigiri", "toro", "spicy tuna roll", "omakase", "uni", "california roll", "hamachi",
	  "chirashi bowl", "salmon sashimi", "miso soup"},
	 {"Sushi", "Hana", "Kaze", "Umi", "Taka", "Kin"}, {"Ya", "Zen", "House", "Bar", "Garden", "Ichi"},
	 15, 0, -15, 0},
	{{"japanese", "ramen"}, NULL, 4, {60, 40, 0, 0},
	 {"tonkotsu ramen", "shoyu ramen", "miso ramen", "gyoza", "chicken karaage", "pork bun",
	  "tsukemen", "spicy ramen", "edamame", "takoyaki"},
	 {"Ramen", "Menya", "Tanuki", "Kotoya", "Noodle", "Ippo"}, {"Bar", "Dojo", "Ya", "House", "Tei", "Stand"},
	 -10, 10, 5, 0},
	{{"italian"}, "wine bar", 9, {10, 45, 35, 10},
	 {"cacio e pepe", "carbonara", "lasagna", "risotto", "osso buco", "tiramisu", "burrata",
	  "grilled salmon", "gnocchi", "spaghetti bolognese"},
	 {"Trattoria", "Osteria", "Cucina", "Ristorante", "Casa", "Enoteca"},
	 {"Bella", "Roma", "Lucca", "del Sole", "Nonna", "Vino"}, 25, 0, -10, 5},
	{{"pizza", "italian"}, NULL, 6, {55, 40, 5, 0},
	 {"margherita pizza", "pepperoni pizza", "calzone", "garlic knots", "caesar salad",
	  "meatball sub", "white pizza", "cannoli", "arancini", "focaccia"},
	 {"Pizza", "Slice of", "Forno", "Tony's", "Pizzeria", "Brick"}, {"Napoli", "Roma", "Oven", "Pie", "Joe", "House"},
	 -10, 30, 5, 10},
	{{"chinese"}, "dim sum", 10, {40, 45, 15, 0},
	 {"kung pao chicken", "mapo tofu", "xiao long bao", "chow mein", "peking duck",
	  "dan dan noodles", "har gow", "fried rice", "hot and sour soup", "salt and pepper squid"},
	 {"Golden", "Jade", "Lucky", "Dragon", "Red", "Happy"}, {"Dragon", "Lotus", "Palace", "Garden", "Wok", "Kitchen"},
	 -10, 20, 0, -10},
	{{"mexican"}, "bar", 9, {55, 40, 5, 0},
	 {"carnitas tacos", "al pastor tacos", "super burrito", "enchiladas", "guacamole", "churros",
	  "mole", "fish tacos", "quesadilla", "margarita"},
	 {"Taqueria", "Casa", "Cantina", "El", "La", "Tacos"}, {"Azul", "Luna", "Sol", "Jalisco", "Rosa", "Guero"},
	 -5, 20, 5, 20},
	{{"indian"}, "south indian", 7, {30, 55, 15, 0},
	 {"butter chicken", "chicken tikka masala", "lamb biryani", "saag paneer", "chana masala",
	  "garlic naan", "samosa", "masala dosa", "dal makhani", "mango lassi"},
	 {"Spice", "Taj", "Curry", "Bombay", "Saffron", "Masala"}, {"Route", "Palace", "House", "Kitchen", "Garden", "Corner"},
	 0, 10, 30, 0},
	{{"thai"}, NULL, 6, {35, 60, 5, 0},
	 {"pad thai", "green curry", "tom yum soup", "pad see ew", "massaman curry", "papaya salad",
	  "mango sticky rice", "khao soi", "larb", "thai iced tea"},
	 {"Thai", "Bangkok", "Siam", "Baan", "Lotus", "Orchid"}, {"Spoon", "Orchid", "House", "Kitchen", "Basil", "Garden"},
	 0, 5, 25, 0},
	{{"vietnamese"}, NULL, 5, {75, 25, 0, 0},
	 {"pho", "banh mi", "bun bo hue", "spring rolls", "broken rice", "vietnamese iced coffee",
	  "bun cha", "banh xeo", "garlic noodles", "shaking beef"},
	 {"Pho", "Saigon", "Hanoi", "Com", "Little", "Banh Mi"}, {"House", "Corner", "Noodle", "Kitchen", "Express", "99"},
	 -15, 20, 0, -10},
	{{"korean"}, "barbecue", 5, {30, 60, 10, 0},
	 {"bulgogi", "galbi", "bibimbap", "kimchi stew", "soondubu", "japchae", "seafood pancake",
	  "pork belly", "tteokbokki", "korean fried chicken"},
	 {"Seoul", "Kimchi", "Tofu", "Gangnam", "Han", "Bori"}, {"Garden", "House", "BBQ", "Story", "Kitchen", "Table"},
	 -5, 20, 0, 15},
	{{"burgers", "american"}, NULL, 8, {60, 38, 2, 0},
	 {"cheeseburger", "bacon burger", "veggie burger", "fries", "onion rings", "milkshake",
	  "chicken sandwich", "smash burger", "sweet potato fries", "turkey burger"},
	 {"Burger", "Patty", "Smash", "Big", "Corner", "Hangar"}, {"Barn", "Shack", "Joint", "Co.", "Stop", "Bros"},
	 -20, 35, 0, 10},
	{{"american", "barbecue"}, NULL, 4, {30, 60, 10, 0},
	 {"brisket", "pulled pork", "ribs", "mac and cheese", "cornbread", "wings", "smoked sausage",
	  "coleslaw", "burnt ends", "banana pudding"},
	 {"Smoke", "Pit", "Hickory", "Big", "Lone", "Red"}, {"Stack", "House", "Shack", "Pit", "Star", "Oak"},
	 -15, 20, -25, 20},
	{{"seafood"}, "american", 4, {10, 50, 35, 5},
	 {"grilled salmon", "clam chowder", "fish and chips", "oysters", "crab cakes", "lobster roll",
	  "shrimp scampi", "cioppino", "fish tacos", "salmon plate"},
	 {"Ocean", "Harbor", "Pier", "Salt", "Blue", "Catch"}, {"Catch", "House", "Grill", "Shack", "Fish", "Bar"},
	 10, 10, -20, 10},
	{{"french"}, "cafe", 3, {5, 35, 45, 15},
	 {"steak frites", "duck confit", "coq au vin", "french onion soup", "creme brulee",
	  "escargots", "salmon en papillote", "croque monsieur", "bouillabaisse", "souffle"},
	 {"Le", "La", "Chez", "Bistro", "Cafe", "Maison"}, {"Papillon", "Amelie", "Rouge", "Paris", "Lyon", "Marcel"},
	 35, -15, -20, 0},
	{{"mediterranean"}, "greek", 5, {25, 60, 15, 0},
	 {"falafel", "hummus", "lamb gyro", "chicken shawarma", "grilled salmon", "baklava",
	  "greek salad", "spanakopita", "lamb chops", "grilled halloumi"},
	 {"Olive", "Aegean", "Mezze", "Cedar", "Santorini", "Fig"}, {"Table", "Grill", "House", "Kitchen", "Garden", "Tree"},
	 10, 10, 30, 5},
	{{"vegan"}, "salads", 3, {30, 60, 10, 0},
	 {"grain bowl", "jackfruit tacos", "cauliflower steak", "black bean burger", "kale salad",
	  "cashew cheesecake", "tofu scramble", "lentil soup", "mushroom tacos", "acai bowl"},
	 {"Green", "Verde", "Sprout", "Leaf", "Root", "Plant"}, {"Kitchen", "Fork", "Table", "Bowl", "House", "Cafe"},
	 0, 15, 100, 0},
	{{"coffee & tea", "cafe"}, "bakery", 6, {80, 20, 0, 0},
	 {"cappuccino", "latte", "croissant", "avocado toast", "breakfast burrito", "scone",
	  "matcha latte", "cold brew", "banana bread", "chai latte"},
	 {"Daily", "Blue", "Morning", "Roasted", "Little", "Corner"}, {"Grind", "Bean", "Cup", "Cafe", "Brew", "Mug"},
	 -15, 20, 10, -30},
	{{"coffee & tea", "dessert"}, NULL, 2, {85, 15, 0, 0},
	 {"bubble tea", "matcha soft serve", "mochi", "egg waffle", "taro slush", "milk tea",
	  "mango pudding", "hojicha latte", "shaved ice", "brown sugar boba"},
	 {"Tea", "Boba", "Matcha", "Sweet", "Honey", "Tapioca"}, {"Garden", "House", "Moments", "Spot", "Lab", "Express"},
	 0, 25, -10, -30},
	{{"bar", "american"}, "burgers", 4, {30, 60, 10, 0},
	 {"wings", "sliders", "nachos", "craft beer", "old fashioned", "fries", "fish tacos",
	  "pub burger", "pretzel", "mac and cheese"},
	 {"The", "Tipsy", "Copper", "Rusty", "Murphy's", "Broadway"}, {"Tap", "Taproom", "Brewhouse", "Anchor", "Lantern", "Saloon"},
	 -10, -30, -10, 45},
	{{"steakhouse", "american"}, NULL, 2, {0, 20, 55, 25},
	 {"ribeye", "filet mignon", "wedge salad", "creamed spinach", "lobster mac", "porterhouse",
	  "shrimp cocktail", "old fashioned", "baked potato", "grilled salmon"},
	 {"Prime", "Iron", "Oak", "Cattle", "Grand", "Stockyard"}, {"Steakhouse", "Chop House", "Grill", "Room", "& Vine", "Tavern"},
	 20, -15, -30, 20},
};

/* ---- reviews ---- */

static const char *const gen_openers[] = {
	"Came here for lunch with {coworkers|my team|a friend}.", "Stopped by on a weeknight.",
	"Came for $PERSON's birthday.", "First time here.", "We've been coming here for years.",
	"Visited $WHEN.", "Finally tried $NAME.", "Ordered a bunch of things to share.",
	"Was in $CITY for work and found this place.", "Third visit this month, so you know.",
};

static const char *const gen_food_pos[] = {
	"The $DISH was {excellent|fantastic|delicious|perfectly cooked|the best I've had in a while}.",
	"{Loved|Really enjoyed|Can't stop thinking about} the $DISH.",
	"$DISH is a must.", "You have to try the $DISH, and the $DISH2 is great too.",
	"Everything we ordered was {fresh|tasty|well seasoned}, especially the $DISH.",
	"{Huge|Generous} portions of $DISH.",
};
static const char *const gen_food_mixed[] = {
	"The $DISH was {fine|okay|decent}, nothing special.",
	"$DISH was good but the $DISH2 was {bland|too salty|a little overcooked}.",
	"Food is {hit or miss|uneven|solid but not amazing}; the $DISH is the safe bet.",
	"{Portions are small|It's a bit overpriced} but the $DISH was tasty.",
};
static const char *const gen_food_neg[] = {
	"The $DISH was {bland|cold|dry|overcooked|way too salty}.", "Skip the $DISH.",
	"{Disappointing|Mediocre} $DISH and the $DISH2 wasn't much better.",
	"Not impressed with the $DISH at all.",
};
static const char *const gen_service_pos[] = {
	"Service was {friendly and quick|warm|attentive without hovering}.",
	"Our server was {great|super helpful|really sweet}.", "Staff were welcoming.",
};
static const char *const gen_service_neg[] = {
	"Service was {slow|disorganized|a bit cold}.", "We had to flag down our server twice.",
	"The staff seemed overwhelmed.",
};
static const char *const gen_price[] = {
	"{A bit pricey|Good value for the money|Prices are fair|Expensive for what you get|Cheap and filling}.",
};
static const char *const gen_closers[] = {
	"Will be back.", "Would come again.", "Not sure I'd return.", "Highly recommend.",
	"{Five|Four} stars from me.", "Overall a solid spot.", "{Meh.|Eh, it's fine.}",
};
/* Sentences that use an attribute's words in another sense: noise for retrieval, never
   evidence. They avoid each attribute's key phrases. */
static const char *const gen_distractors[] = {
	"My friend was running late so I sat and read the menu for a while.",
	"Parked my bike right out front.", "Happy to report the $DISH is still good.",
	"I'm not vegan but my sister is, and she wasn't with us this time.",
	"We sat inside because it was raining.", "Brought my laptop and got some work done.",
};
static const char *const gen_people[] = {
	"my wife", "my husband", "my girlfriend", "my boyfriend", "my parents", "a coworker",
	"my sister", "my roommate", "an old friend", "my mom",
};
static const char *const gen_when[] = {
	"on a Friday night", "on a Tuesday", "for Sunday brunch", "on a rainy Monday",
	"late on a Saturday", "for a quick lunch", "after work",
};
static const char *const gen_hedges[] = {
	"", "", "", "", "", "Honestly, ", "Also, ", "To be fair, ", "FWIW, ", "Oh and ", "Btw, ",
};

typedef enum GenEv {GEN_NONE, GEN_CLEAR, GEN_WEAK, GEN_NEGATED} GenEv;
static const char *const gen_ev_names[] = {"none", "clear", "weak", "negated"};

typedef struct GenAttr {
	const char *name;
	int base;                      /* base chance of 1, percent */
	const char *yes[3][5];         /* value 1: clear, weak, negated */
	const char *no[3][5];          /* value 0: clear, weak, negated */
} GenAttr;

/* The keywords a test can look for: clear phrases for 1 contain one of the attribute's
   (romantic|date|candle|intimate, kid|famil, parking|park, wait|queue|line, happy hour,
   vegan|plant, patio|outdoor|outside); clear phrases for 0 say "not"/"no"/"nothing" or an
   explicit opposite. */
static const GenAttr gen_attrs[] = {
	{"romantic", 25,
	 {{"{Very|So|Super} romantic.", "Perfect for a date night.", "Great spot for a first date.",
	   "Intimate candlelit room, we {loved|adored} it.", "We celebrated our anniversary here and it was so romantic."},
	  {"The lighting is low and the music is soft.", "Tables are spaced out so you can actually talk.",
	   "A nice place to linger over a bottle of wine.", "Quiet little corners and soft jazz.", NULL},
	  {"Not loud at all, you can hear each other talk.", "Never feels rushed or noisy, which $PERSON appreciated.",
	   "It's not the kind of place where you have to shout.", NULL, NULL}},
	 {{"Not romantic at all.", "Definitely not a date spot.", "Too loud and bright for a date.",
	   "Not the place to take a date.", NULL},
	  {"Bright lights and TVs on every wall.", "It's loud and hectic.", "Paper plates and plastic forks.",
	   "Crowded communal tables, elbow to elbow.", NULL},
	  {"Wouldn't call it romantic.", "Hardly a date night kind of place.", "Not exactly intimate.", NULL, NULL}}},
	{"kids", 40,
	 {{"Great for families.", "Our kids loved it.", "Very kid friendly, they have a kids menu.",
	   "Family-friendly and relaxed.", "Brought the whole family and the kids had a blast."},
	  {"Saw a lot of families with strollers.", "They have high chairs.", "Crayons on the table.",
	   "Lots of birthday parties going on.", NULL},
	  {"Never felt out of place with our toddler.", "Nobody minded our noisy little ones.",
	   "No one batted an eye when our baby fussed.", NULL, NULL}},
	 {{"Not a place for kids.", "No kids menu and nothing for children.", "Adults only vibe, leave the kids at home.",
	   "Not kid friendly.", NULL},
	  {"It's more of a bar scene.", "A quiet, grown-up room.", "Lots of cocktails, few strollers.", NULL, NULL},
	  {"Wouldn't bring children here.", "No high chairs, no crayons, nothing for little ones.", NULL, NULL, NULL}}},
	{"parking", 45,
	 {{"Easy parking.", "Tons of free parking behind the building.", "Plenty of parking in the lot.",
	   "Parking is easy, there's a big lot.", NULL},
	  {"There's a garage a block away.", "We found a spot on the street right away.", "Shares a lot with the grocery store.", NULL, NULL},
	  {"Parking was never a problem.", "No trouble finding a spot to park.", "Never had an issue parking.", NULL, NULL}},
	 {{"Parking is a nightmare.", "Impossible to park around here.", "We circled for $MIN minutes looking for parking.",
	   "No parking anywhere nearby.", NULL},
	  {"Take the train if you can.", "Street spots only, and they're metered and always taken.", NULL, NULL, NULL},
	  {"Parking is not easy around here.", "There's no lot and no garage nearby.", NULL, NULL, NULL}}},
	{"long_wait", 30,
	 {{"We waited over an hour for a table.", "We queued for $MIN minutes.", "Long wait, even with a reservation.",
	   "Expect a long line at dinner.", "The wait was $MIN minutes on a weeknight."},
	  {"It's always packed.", "Put your name on the list and go for a walk.", "Get there early.", NULL, NULL},
	  {"Not a quick in-and-out place, expect to wait.", "It's never a short wait here.", NULL, NULL, NULL}},
	 {{"Seated right away.", "No wait at all.", "Walked right in and got a table.", "We got a table immediately, no wait.", NULL},
	  {"It was pretty empty on a Friday.", "In and out in half an hour.", NULL, NULL, NULL},
	  {"Never had to wait.", "We didn't wait more than five minutes.", "Never waited for a table, even on weekends.", NULL, NULL}}},
	{"happy_hour", 25,
	 {{"Great happy hour.", "Happy hour from 4 to 6 with cheap drinks.", "Half-price appetizers at happy hour.",
	   "The happy hour deals are the best in $CITY.", NULL},
	  {"Cheap drinks in the late afternoon.", "Five dollar beers before six.", "Bar specials on weekday afternoons.", NULL, NULL},
	  {"Don't miss their happy hour, it's not to be skipped.", "You can't beat their happy hour prices.", NULL, NULL, NULL}},
	 {{"No happy hour, sadly.", "They don't do happy hour anymore.", "There's no happy hour.", NULL, NULL},
	  {"Drinks are pricey.", "The bar is tiny and expensive.", NULL, NULL, NULL},
	  {"No drink specials at all, not even on weekdays.", "Not a place for after-work deals.", NULL, NULL, NULL}}},
	{"vegan", 30,
	 {{"Lots of vegan options.", "They have a whole vegan menu.", "My vegan friend had plenty of choices.",
	   "Great for vegans.", "Everything is clearly marked vegan or not."},
	  {"They can make most dishes with tofu.", "Several dishes without meat or dairy.", "Oat milk and veggie plates available.", NULL, NULL},
	  {"Vegans won't go hungry here.", "Not hard at all to eat vegan here.", NULL, NULL, NULL}},
	 {{"Nothing vegan on the menu.", "No vegan options.", "Not a single vegan dish.", NULL, NULL},
	  {"Everything is cooked in butter.", "Even the vegetables come with bacon.", NULL, NULL, NULL},
	  {"Not a place for vegans.", "My vegan friend couldn't order anything.", NULL, NULL, NULL}}},
	{"outdoor", 40,
	 {{"Outdoor seating is lovely.", "Lovely patio.", "We sat outside on the patio.", "Great outdoor tables in the sun.", NULL},
	  {"A few tables on the sidewalk.", "The garden out back is nice.", "Heaters and string lights out back.", NULL, NULL},
	  {"You don't have to sit inside, there's a patio.", "No need to stay indoors when it's sunny, they have a patio.", NULL, NULL, NULL}},
	 {{"No outdoor seating.", "Indoor seating only.", "There's no patio.", NULL, NULL},
	  {"The dining room has no windows.", "It's a basement room.", NULL, NULL, NULL},
	  {"Can't sit outside, unfortunately.", "Not a single table outdoors.", NULL, NULL, NULL}}},
};
#define GEN_NATTR ((int)(sizeof gen_attrs / sizeof *gen_attrs))

static const char *const gen_hours[] = {
	"Daily 11am-9pm", "Daily 11am-10pm", "Mon-Sat 11:30am-9:30pm; Sun closed",
	"Tue-Sun 5pm-10pm; Mon closed", "Daily 7am-3pm", "Mon-Fri 11am-2:30pm, 5pm-9:30pm; Sat-Sun 10am-10pm",
	"Daily 9am-9pm", "Wed-Sun 5:30pm-10pm", "Daily 6:30am-6pm", "Mon-Thu 4pm-11pm; Fri-Sat 12pm-1am; Sun 12pm-10pm",
};

#endif
