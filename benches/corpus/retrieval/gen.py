#!/usr/bin/env python3
"""Generates the retrieval corpus: dev.jsonl and test.jsonl beside this file.

    python3 benches/corpus/retrieval/gen.py

Deterministic (fixed seed, no clock, no network): running it again gives the
same bytes. Each output line is one conversation: a user's multi-session
history with an assistant, and questions about it with annotated evidence
turns.

    {"id": "c07", "split": "dev", "language": "en",
     "sessions": [{"id": "c07-s1", "date": "2025-03-02",
                   "turns": [{"id": "c07-s1-t1", "speaker": "user", "text": "..."}]}],
     "questions": [{"id": "c07-q3", "type": "single-hop", "question": "...",
                    "evidence": ["c07-s2-t5"]}]}

Question types: single-hop, multi-hop (two evidence turns in different
sessions), temporal (a fact that changed: the current value, the value
before the change, or when something happened), preference (likes, dislikes
and habits asked about indirectly), paraphrase (no content word shared with
the evidence: checked here), chinese (a Chinese conversation), mixed
(English and Chinese in one conversation and in its questions).

Realism and distractors: most turns are not evidence (small talk, plans,
the assistant's replies, which often echo the user's words); every fact
family has near-miss turns sharing its topic words; families and filler
topics are drawn from shared pools, so conversations overlap in topic; a
temporal fact is stated, then changed in a later session.

The split is by conversation and fixed here, before any tuning: it
alternates within each language, so dev and test hold the same mix.
Both splits were written before anything was tuned; tune on dev only.
"""

import json
import os
import random
import re

SEED = 20261201
N_EN, N_ZH, N_MIX = 26, 8, 6
HERE = os.path.dirname(os.path.abspath(__file__))

# ---------------------------------------------------------------- slot pools

NAMES = ["Lena", "Ravi", "Tomas", "Aiko", "Marta", "Jonah", "Priya", "Ollie", "Sofia",
         "Dmitri", "Hana", "Felix", "Nadia", "Caleb", "Ines", "Yusuf", "Greta", "Mateo",
         "Chloe", "Arjun", "Bea", "Kofi", "Elif", "Rosa"]
RELATIONS = ["sister", "brother", "cousin", "aunt", "uncle", "best friend", "roommate",
             "neighbour", "old college friend"]
CITIES = ["Lisbon", "Porto", "Leeds", "Bristol", "Lyon", "Valencia", "Krakow", "Ghent",
          "Tallinn", "Bologna", "Galway", "Utrecht", "Seville", "Bergen", "Graz", "Nantes"]
PET_KINDS = ["beagle", "corgi", "tabby cat", "greyhound", "rescue terrier", "parrot",
             "border collie", "Maine Coon"]
PET_NAMES = ["Pepper", "Biscuit", "Mochi", "Juniper", "Waffles", "Ziggy", "Clover", "Noodle"]
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]
JOBS = [("a nurse", "the children's hospital"), ("a data analyst", "a logistics startup"),
        ("an architect", "a small studio"), ("a pastry chef", "a hotel bakery"),
        ("a physiotherapist", "a sports clinic"), ("a civil engineer", "the city council"),
        ("a translator", "a publishing house"), ("a UX researcher", "a fintech company")]
LANGS = ["Python", "Go", "Rust", "TypeScript", "Kotlin", "Elixir"]
DBS = ["PostgreSQL", "MySQL", "SQLite", "MongoDB", "Redis"]
INSTRUMENTS = ["ukulele", "cello", "banjo", "keyboard", "violin", "harmonica"]
SPORTS = ["bouldering", "rowing", "badminton", "trail running", "salsa dancing", "kayaking"]
BOOKS = ["The Remains of the Day", "Piranesi", "Project Hail Mary", "The Overstory",
         "Klara and the Sun", "Middlemarch", "Station Eleven", "The Name of the Wind"]
HERBS = ["cilantro", "dill", "fennel", "tarragon"]
ALLERGENS = ["peanuts", "shellfish", "sesame", "kiwi"]
CARS = ["a secondhand Skoda", "a blue Honda Jazz", "an electric Renault Zoe",
        "a rusty Volvo estate"]
BIKES = ["a gravel bike", "a folding Brompton", "a cargo bike", "a steel touring bike"]
PLANTS = ["monstera", "fiddle-leaf fig", "snake plant", "bonsai juniper"]
DISHES = ["ramen", "paella", "dumplings", "lasagne", "tacos", "pho", "risotto", "curry"]
CUISINES = ["Georgian", "Ethiopian", "Korean", "Peruvian", "Lebanese", "Sichuan"]
MONTHS = ["March", "April", "May", "June", "September", "October", "November"]
RACES = ["half marathon", "10K charity run", "sprint triathlon", "trail ultra"]
COFFEES = ["flat white", "oat latte", "double espresso", "cortado"]
TEAS = ["sencha", "rooibos", "earl grey", "chamomile"]
LAPTOPS = ["ThinkPad", "MacBook Air", "Framework laptop", "Dell XPS"]
EDITORS = ["Neovim", "VS Code", "Helix", "Emacs"]
GYMS_TIMES = ["at six in the morning", "at lunchtime", "right after work", "late at night"]
STREAMS = ["a podcast about urban planning", "a Danish crime series", "a baking competition",
           "a documentary about octopuses"]


def pick(rng, pool, avoid=()):
    choices = [x for x in pool if x not in avoid]
    return rng.choice(choices)


def distinct(rng, **pools):
    """One value per named pool, no two equal (pools may be shared)."""
    out = {}
    for name, pool in pools.items():
        out[name] = pick(rng, pool, avoid=tuple(out.values()))
    return out


# ------------------------------------------------------------ English facts
#
# A family: slots (drawn once per conversation), `say` (the evidence turn,
# one variant drawn), assistant replies, near-miss distractors (same topic,
# not evidence) and questions. Optional `update` (a later session changes a
# slot: temporal) and `hop` (a second fact about the same thing, in another
# session: multi-hop). Question entries: (type, template, which evidence:
# "say", "update", "hop", "say+hop").

EN_FAMILIES = [
    dict(key="pet",
         slots=lambda r: dict(distinct(r, kind=PET_KINDS, other=PET_KINDS), pet=pick(r, PET_NAMES)),
         say=["We finally adopted a {kind}! Her name is {pet} and she's already chewing my shoes.",
              "Big news at home: we adopted a {kind} from the shelter, we're calling him {pet}."],
         echo=["{pet} is a lovely name for a {kind}! How is the first week going?"],
         near=["My neighbour's {other} barked at the delivery guy for twenty minutes again.",
               "Saw a {other} at the park today that looked exactly like a cartoon character."],
         qs=[("single-hop", "What is the name of the {kind} we adopted?", "say"),
             ("paraphrase", "How is the newest furry member of our family addressed?", "say")]),
    dict(key="deploy",
         slots=lambda r: dict(day=pick(r, WEEKDAYS), day2=None),
         say=["At work we deploy every {day} afternoon, so {day} mornings are always hectic.",
              "Our team's release train leaves on {day}s: deploys happen on {day} after lunch."],
         echo=["Got it, {day} deploys. Do you freeze merges the day before?"],
         near=["The deploy pipeline broke again because someone force-pushed to main.",
               "I spent the whole afternoon rolling back a bad migration, not fun."],
         update=dict(slot="day", pool=WEEKDAYS,
                     say=["Change of plan at work: from now on deploys move to {day2} mornings.",
                          "Heads up, our release day is no longer {day}, it's {day2} starting this sprint."]),
         qs=[("temporal", "Which day do we deploy now?", "update"),
             ("temporal", "What was our deploy day before the schedule changed?", "say"),
             ("paraphrase", "When does my crew currently ship to production?", "update")]),
    dict(key="sibling_job",
         slots=lambda r: dict(name=pick(r, NAMES), rel=pick(r, ["cousin", "best friend", "flatmate"]),
                              job=r.choice(JOBS), city=pick(r, CITIES)),
         say=["My {rel} {name} just started working as {job[0]} at {job[1]}.",
              "{name}, my {rel}, got the job! {name} is going to be {job[0]} at {job[1]}."],
         echo=["Congratulations to {name}! Being {job[0]} sounds like a great fit."],
         near=["My friend's {rel} is also job hunting, the market is brutal right now.",
               "Had a long call with my {rel} about nothing in particular, it was nice."],
         hop=["{name} is moving to {city} next month for the new job, I'm going to miss the weekly dinners."],
         qs=[("single-hop", "What job did my {rel} {name} start?", "say"),
             ("multi-hop", "Which city is my {rel} who became {job[0]} moving to?", "say+hop"),
             ("paraphrase", "Which line of employment has a close person in my life entered?", "say")]),
    dict(key="allergy",
         slots=lambda r: dict(allergen=pick(r, ALLERGENS)),
         say=["Quick thing to remember: I'm allergic to {allergen}, even traces make my throat itch."],
         echo=["Noted, no {allergen}. I'll keep that in mind for any recipe ideas."],
         near=["The bakery started labelling allergens on every shelf, which is nice.",
               "My coworker brought cookies with {allergen} and warned everyone, very considerate."],
         qs=[("single-hop", "What am I allergic to?", "say"),
             ("preference", "Which ingredient must never be in a dish you suggest for me?", "say")]),
    dict(key="herb",
         slots=lambda r: dict(herb=pick(r, HERBS), dish=pick(r, DISHES)),
         say=["I honestly can't stand {herb}, to me it tastes like soap.",
              "Please never put {herb} in anything for me, I find it revolting."],
         echo=["Ha, you're not alone, lots of people feel that way about {herb}."],
         near=["We grew way too much basil on the balcony this summer.",
               "The {dish} at the market stall had a ton of fresh herbs on top."],
         qs=[("preference", "Which herb should you leave out of recipes for me?", "say"),
             ("paraphrase", "Which seasoning leaf is gross according to me?", "say")]),
    dict(key="language",
         slots=lambda r: dict(distinct(r, lang=LANGS, old=LANGS), db=pick(r, DBS)),
         say=["For side projects I prefer {lang}; I moved away from {old} because the tooling annoyed me.",
              "These days I write almost everything in {lang}, {old} just never clicked for me."],
         echo=["{lang} is a solid choice for side projects. What are you building?"],
         near=["The conference talk about {old} performance was surprisingly good.",
               "Half of my team is arguing about tabs versus spaces again."],
         hop=["The side project is a little recipe tracker, and it stores everything in {db}."],
         qs=[("preference", "Which programming language do I like using for side projects?", "say"),
             ("multi-hop", "What database does the project I write in {lang} use?", "say+hop"),
             ("single-hop", "Which language did I move away from?", "say")]),
    dict(key="move",
         slots=lambda r: dict(city=pick(r, CITIES), city2=None, months=r.choice(["three", "five", "eight"])),
         say=["We've been living in {city} for {months} years now and I still get lost in the old town."],
         echo=["{city} sounds charming. Do you think you'll stay there long term?"],
         near=["A friend just came back from a trip and keeps showing me photos of canals.",
               "Rent prices in every city seem to be going up at the same time."],
         update=dict(slot="city", pool=CITIES,
                     say=["We did it, the boxes are unpacked: we officially live in {city2} now!",
                          "The move is done, goodbye {city}, hello {city2}."]),
         qs=[("temporal", "Which city do I live in now?", "update"),
             ("temporal", "Where did I live before the move?", "say"),
             ("paraphrase", "In what town is my current home?", "update")]),
    dict(key="instrument",
         slots=lambda r: dict(inst=pick(r, INSTRUMENTS), name=pick(r, NAMES), rel=pick(r, RELATIONS),
                              city=pick(r, CITIES)),
         say=["My {rel} {name} gave me a {inst} for my birthday, so now I'm learning chords on YouTube."],
         echo=["What a thoughtful gift! Learning the {inst} from videos works well for a lot of people."],
         near=["There was a street musician outside the station playing something beautiful.",
               "I keep meaning to clean up the garage, it's full of old music gear."],
         hop=["{name} is visiting from {city} next weekend, I should practise before then."],
         qs=[("single-hop", "Who gave me the {inst}?", "say"),
             ("multi-hop", "Where does the person who gave me a {inst} live?", "say+hop"),
             ("paraphrase", "Which musical present did I receive when I turned a year older?", "say")]),
    dict(key="sport",
         slots=lambda r: dict(sport=pick(r, SPORTS), time=pick(r, GYMS_TIMES)),
         say=["I've picked up {sport} and I go twice a week, usually {time}."],
         echo=["{sport} is such a good workout. Twice a week is a nice rhythm."],
         near=["My shoulder has been sore since I helped a friend carry a sofa.",
               "I watched a documentary about elite athletes and felt very lazy."],
         qs=[("single-hop", "What sport did I pick up?", "say"),
             ("preference", "At what time of day do I usually go to {sport}?", "say"),
             ("paraphrase", "Which physical hobby have I been doing two times every seven days?", "say")]),
    dict(key="book",
         slots=lambda r: distinct(r, book=BOOKS, other=BOOKS),
         say=["I just finished {book} and I think it might be my favourite novel ever."],
         echo=["{book} is wonderful. What did you love most about it?"],
         near=["My book club picked {other} for next month, I'm not sure I'll finish it.",
               "The library near work has a great secondhand shelf."],
         qs=[("preference", "Which novel did I call my favourite?", "say"),
             ("single-hop", "What book did I just finish?", "say")]),
    dict(key="coffee",
         slots=lambda r: dict(coffee=pick(r, COFFEES), tea=pick(r, TEAS)),
         say=["My morning order is always a {coffee}, and after 3pm I switch to {tea}."],
         echo=["A {coffee} in the morning sounds perfect."],
         near=["The new cafe downstairs has terrible wifi but great pastries.",
               "I tried to cut down on caffeine last year and lasted four days."],
         qs=[("preference", "What coffee do I usually order in the morning?", "say"),
             ("preference", "What do I drink in the afternoon instead of coffee?", "say")]),
    dict(key="car",
         slots=lambda r: dict(car=pick(r, CARS), car2=None),
         say=["We bought {car} last week, mostly for trips to the coast."],
         echo=["Congrats on the car! Road trips to the coast sound lovely."],
         near=["Parking near the office is impossible on Mondays.",
               "The mechanic said the tyres on my friend's van are nearly bald."],
         update=dict(slot="car", pool=CARS,
                     say=["We sold the old car and got {car2} instead, it's much more comfortable."]),
         qs=[("temporal", "What car do we drive now?", "update"),
             ("temporal", "What car did we have before the current one?", "say")]),
    dict(key="diet",
         slots=lambda r: dict(month=pick(r, MONTHS)),
         say=["I've been vegetarian since {month}, and honestly I don't miss meat at all."],
         echo=["That's a big change! Are you cooking more at home since {month}?"],
         near=["My dad still thinks a meal without sausages isn't a meal.",
               "We had a barbecue at the neighbours' and there was a lot of grilled stuff."],
         qs=[("preference", "Would I enjoy a steakhouse dinner?", "say"),
             ("temporal", "Since when have I been vegetarian?", "say"),
             ("paraphrase", "Do I eat animal flesh these days?", "say")]),
    dict(key="race",
         slots=lambda r: dict(race=pick(r, RACES), city=pick(r, CITIES), minutes=r.choice(["52", "47", "58"])),
         say=["I finished the {city} {race} this morning, and I'm never walking again."],
         echo=["You did it! How did the {race} go?"],
         near=["The running club is organising a group trip to a race abroad.",
               "My running shoes are falling apart, I need new ones."],
         qs=[("temporal", "When did I run the {race} in {city}?", "say"),
             ("single-hop", "Which race did I finish in {city}?", "say")]),
    dict(key="plant",
         slots=lambda r: dict(plant=pick(r, PLANTS), name=pick(r, NAMES)),
         say=["I repotted my {plant} today; it finally has room to grow."],
         echo=["Repotting always feels satisfying. Where is the {plant} living now?"],
         near=["The garden centre had a sale on succulents, I restrained myself.",
               "My windowsill tomatoes got eaten by something overnight."],
         hop=["The {plant} was a housewarming gift from {name}, so I really don't want it to die."],
         qs=[("single-hop", "Which plant did I repot?", "say"),
             ("multi-hop", "Who gave me the plant I repotted?", "say+hop")]),
    dict(key="laptop",
         slots=lambda r: dict(laptop=pick(r, LAPTOPS), editor=pick(r, EDITORS)),
         say=["My new work machine is a {laptop} and I've set up {editor} exactly how I like it."],
         echo=["Nice, a fresh {laptop}! Setting up {editor} is half the fun."],
         near=["IT forced another password reset on everyone this morning.",
               "My old keyboard's space bar finally gave up."],
         qs=[("single-hop", "What laptop did I get for work?", "say"),
             ("preference", "Which text editor do I like to use?", "say")]),
    dict(key="dentist",
         slots=lambda r: dict(month=pick(r, MONTHS), day=r.choice(["3rd", "9th", "14th", "22nd"]),
                              day2=None),
         say=["Dentist appointment is booked for {month} {day}, I've been putting it off for ages."],
         echo=["Good that it's booked! Do you want a reminder before {month} {day}?"],
         near=["My tooth has been a bit sensitive to cold drinks lately.",
               "The clinic sent a survey about my last check-up."],
         update=dict(slot="day", pool=["5th", "11th", "18th", "27th"],
                     say=["The dental clinic called and moved my appointment to the {day2}, same month."]),
         qs=[("temporal", "When is my dentist appointment now?", "update"),
             ("temporal", "What date was the dentist appointment originally?", "say")]),
    dict(key="stream",
         slots=lambda r: dict(show=pick(r, STREAMS)),
         say=["Lately I've been binging {show}; I watch an episode every night before bed."],
         echo=["Ooh, {show} sounds fun. Which episode are you on?"],
         near=["The streaming service raised its prices again.",
               "My friends keep recommending shows I never have time for."],
         qs=[("preference", "What have I been watching every night?", "say"),
             ("paraphrase", "Which programme do I view in the evenings lately?", "say")]),
    dict(key="trip",
         slots=lambda r: dict(city=pick(r, CITIES), month=pick(r, MONTHS), name=pick(r, NAMES)),
         say=["{name} and I booked flights to {city} for {month}, it's our first trip together in years."],
         echo=["A trip to {city} in {month}! Do you have an itinerary yet?"],
         near=["Airport security took my toothpaste away again.",
               "I looked at train tickets to the mountains but they're so expensive."],
         qs=[("single-hop", "Where am I flying with {name} in {month}?", "say"),
             ("temporal", "In which month is my trip to {city}?", "say"),
             ("paraphrase", "Which destination will my companion and I travel to by plane?", "say")]),
    dict(key="cuisine",
         slots=lambda r: dict(cuisine=pick(r, CUISINES), dish=pick(r, DISHES)),
         say=["We found a tiny {cuisine} restaurant around the corner and it's now our Friday spot."],
         echo=["A new favourite spot! What do you usually order at the {cuisine} place?"],
         near=["The {dish} I made on Sunday was a disaster, way too salty.",
               "Food delivery apps are getting so expensive."],
         qs=[("preference", "Which cuisine is our Friday restaurant?", "say"),
             ("paraphrase", "Where do we go to eat at the end of each working week?", "say")]),
    dict(key="bike",
         slots=lambda r: dict(bike=pick(r, BIKES), bike2=None),
         say=["I commute on {bike} now, it takes twenty minutes each way."],
         echo=["Cycling to work is great. Twenty minutes is a nice distance."],
         near=["A bus nearly clipped a cyclist in front of me today.",
               "The city is finally adding a protected lane on the main road."],
         update=dict(slot="bike", pool=BIKES,
                     say=["Someone stole my bike from the station rack, so I bought {bike2} as a replacement."]),
         qs=[("temporal", "What bike do I ride to work now?", "update"),
             ("temporal", "Which bike was stolen?", "say")]),
    dict(key="manager",
         slots=lambda r: dict(name=pick(r, NAMES), name2=None),
         say=["My manager is {name}; she's strict about deadlines but very fair."],
         echo=["It helps a lot to have a fair manager like {name}."],
         near=["There's a reorg rumour going around the office again.",
               "Our quarterly planning meeting ran three hours over."],
         update=dict(slot="name", pool=NAMES,
                     say=["After the reorg I report to {name2} now, we'll see how that goes."]),
         qs=[("temporal", "Who is my manager now?", "update"),
             ("temporal", "Who did I report to before the reorg?", "say"),
             ("paraphrase", "Which person is my current boss?", "update")]),
    dict(key="sleep",
         slots=lambda r: dict(hour=r.choice(["ten", "half past ten", "eleven"])),
         say=["I try to be in bed by {hour} on weeknights, otherwise I'm useless the next day."],
         echo=["A consistent bedtime makes a huge difference."],
         near=["The neighbours had a party until 2am and I barely slept.",
               "I read that screens before bed are bad, but here I am."],
         qs=[("preference", "What time do I go to bed on weeknights?", "say"),
             ("paraphrase", "When do I usually turn in on workdays?", "say")]),
    dict(key="noise",
         slots=lambda r: dict(),
         say=["Open-plan offices drain me; I get my best work done with noise-cancelling headphones on."],
         echo=["Lots of people find open-plan spaces exhausting."],
         near=["The office coffee machine is broken for the third time this month.",
               "We got new desks at work and they wobble."],
         qs=[("preference", "How do I prefer to work when it's loud around me?", "say"),
             ("paraphrase", "What helps me concentrate in a busy room full of colleagues?", "say")]),
    dict(key="volunteer",
         slots=lambda r: dict(day=pick(r, ["Saturday", "Sunday"]), place=r.choice(["the food bank", "an animal shelter", "the community garden"])),
         say=["I've started volunteering at {place} every {day} morning."],
         echo=["That's really kind of you. What do you do at {place}?"],
         near=["My company offers two volunteering days a year, I never use them.",
               "There was a charity bake sale at the school down the road."],
         qs=[("single-hop", "Where do I volunteer?", "say"),
             ("temporal", "On which day do I volunteer?", "say")]),
    dict(key="course",
         slots=lambda r: dict(subject=r.choice(["Spanish", "pottery", "Japanese", "woodworking", "photography"]),
                              teacher=pick(r, NAMES)),
         say=["I signed up for an evening {subject} course, the teacher is called {teacher}."],
         echo=["An evening {subject} course sounds like a great way to unwind."],
         near=["I keep buying online courses and never finishing them.",
               "My niece is learning three languages at school, kids are amazing."],
         qs=[("single-hop", "Who teaches my evening {subject} course?", "say"),
             ("single-hop", "What evening course did I sign up for?", "say")]),
]

# Small talk turns: not evidence, drawn from shared topics (work, food,
# weather, travel, sport, family, tech), many sharing words with the facts.
EN_FILLER = [
    "Work was chaotic today, three meetings that could have been emails.",
    "It rained all day so I stayed in and made soup.",
    "Do you have any tips for staying focused in the afternoon?",
    "I tried a new recipe for {dish} and it turned out better than expected.",
    "{name} called to complain about her landlord again.",
    "Can you suggest a good stretching routine after running?",
    "The weekend flew by, I didn't get anything done.",
    "I'm thinking of redecorating the living room, maybe a darker green.",
    "We watched a movie last night but I fell asleep halfway through.",
    "My phone battery dies by lunchtime now, I need a new one.",
    "The train was cancelled so I worked from home.",
    "Any ideas for a birthday present for someone who has everything?",
    "I finally cleaned out my inbox, it feels amazing.",
    "We're hosting dinner for six people on Saturday, I'm a bit nervous.",
    "I'm trying to drink more water, any tricks?",
    "The team lunch was at a {cuisine} place, pretty good.",
    "My back hurts from sitting all day, I need a better chair.",
    "Thinking about a weekend in {city}, have you heard good things?",
    "The heating in our flat is acting up again.",
    "I started journaling before bed, it calms me down.",
    "Our sprint review went well, the demo actually worked.",
    "I've been meaning to call my grandmother more often.",
    "The supermarket was out of eggs, again.",
    "What's a quick dinner I can make in fifteen minutes?",
    "I want to get better at saying no to extra work.",
    "We had a power cut for two hours this evening.",
    "Someone at work brought a puppy to the office today.",
    "I'm so tired of the grey weather.",
    "Can you help me plan a packing list for a short trip?",
    "My friend {name} recommended a podcast about history.",
    "I need to renew my passport before the summer.",
    "The code review took forever because the diff was huge.",
    "I bought new running shoes, but they pinch a little.",
    "Our landlord finally fixed the leaking tap.",
    "I'm trying to learn to cook without a recipe.",
    "Had a video call with the whole family, very noisy.",
    "How long should I let bread dough rise?",
    "The project deadline moved up by a week, great.",
    "I signed up for a newsletter about gardening.",
    "My sister sent me a photo of her new kitchen.",
]
EN_ASSISTANT = [
    "That sounds like a lot. How are you feeling about it?",
    "Thanks for telling me, I'll keep that in mind.",
    "Good to know! Anything else on your mind today?",
    "That's great to hear.",
    "Oh no, I'm sorry, that sounds frustrating.",
    "Here's a thought: try breaking it into smaller steps.",
    "I'd suggest starting simple and adjusting as you go.",
    "Noted. Want me to remind you about it later?",
    "Interesting! Tell me more when you have time.",
    "That makes sense. Let me know how it turns out.",
    "A few options: keep it light, prepare ahead, and don't overthink it.",
    "Sounds like a good plan to me.",
]

# ------------------------------------------------------------ Chinese facts

ZH_NAMES = ["小雨", "阿杰", "王磊", "李娜", "陈晨", "周洋", "林婷", "赵鹏"]
ZH_CITIES = ["杭州", "成都", "深圳", "厦门", "南京", "青岛", "西安", "昆明", "苏州", "大连"]
ZH_PETS = ["柯基", "橘猫", "柴犬", "布偶猫", "金毛"]
ZH_PET_NAMES = ["豆豆", "年糕", "可乐", "小满", "团子"]
ZH_DAYS = ["周一", "周二", "周三", "周四", "周五"]
ZH_JOBS = ["护士", "会计", "建筑师", "程序员", "中学老师", "摄影师"]
ZH_FOODS = ["火锅", "烤鸭", "螺蛳粉", "小笼包", "酸菜鱼"]
ZH_SPORTS = ["游泳", "羽毛球", "瑜伽", "攀岩", "跑步"]
ZH_DRINKS = ["美式咖啡", "乌龙茶", "豆浆", "拿铁"]

ZH_FAMILIES = [
    dict(key="pet", slots=lambda r: dict(kind=pick(r, ZH_PETS), pet=pick(r, ZH_PET_NAMES)),
         say=["我们上周末从救助站领养了一只{kind}，给它起名叫{pet}。"],
         echo=["{pet}这个名字真可爱！它适应新家了吗？"],
         near=["楼下邻居家的狗又叫了一整晚。", "今天在公园看到好多人遛狗。"],
         qs=[("chinese", "我们领养的{kind}叫什么名字？", "say"),
             ("chinese", "家里新来的毛孩子叫啥？", "say")]),
    dict(key="deploy", slots=lambda r: dict(day=pick(r, ZH_DAYS), day2=None),
         say=["我们组每个{day}下午上线新版本，所以{day}上午总是特别忙。"],
         echo=["明白，{day}上线。前一天会冻结代码吗？"],
         near=["今天流水线又挂了，有人直接推到了主分支。", "下午花了三个小时回滚数据库迁移。"],
         update=dict(slot="day", pool=ZH_DAYS,
                     say=["通知一下：从这个迭代开始，发布日改到{day2}上午了。"]),
         qs=[("chinese", "我们现在哪天发布？", "update"),
             ("chinese", "发布日改之前是哪天上线？", "say")]),
    dict(key="job", slots=lambda r: dict(name=pick(r, ZH_NAMES), job=pick(r, ZH_JOBS), city=pick(r, ZH_CITIES)),
         say=["我表妹{name}刚找到工作，在医院旁边的单位当{job}。"],
         echo=["恭喜{name}！当{job}挺适合她的。"],
         near=["朋友的表弟也在找工作，今年真难。", "跟表妹聊了一晚上家常。"],
         hop=["{name}下个月要搬去{city}了，以后见面就少了。"],
         qs=[("chinese", "表妹{name}现在做什么工作？", "say"),
             ("chinese", "当{job}的表妹要搬到哪个城市？", "say+hop")]),
    dict(key="allergy", slots=lambda r: dict(food=pick(r, ["花生", "海鲜", "芒果", "芝麻"])),
         say=["提醒一下，我对{food}过敏，吃一点点喉咙就痒。"],
         echo=["记住了，推荐菜谱时不会有{food}。"],
         near=["面包店现在每个货架都标了过敏原。", "同事带了零食分给大家。"],
         qs=[("chinese", "我对什么过敏？", "say"),
             ("chinese", "给我推荐菜的时候哪种食材绝对不能放？", "say")]),
    dict(key="city", slots=lambda r: dict(city=pick(r, ZH_CITIES), city2=None),
         say=["我们在{city}已经住了五年了，老城区还是经常迷路。"],
         echo=["{city}听起来很有意思，打算长期住下去吗？"],
         near=["朋友刚旅游回来，一直给我看照片。", "感觉每个城市的房租都在涨。"],
         update=dict(slot="city", pool=ZH_CITIES,
                     say=["终于搬完家了，我们现在正式住在{city2}啦！"]),
         qs=[("chinese", "我现在住在哪个城市？", "update"),
             ("chinese", "搬家之前我住在哪里？", "say")]),
    dict(key="food", slots=lambda r: dict(food=pick(r, ZH_FOODS)),
         say=["我最爱吃的就是{food}，一个月不吃就想得慌。"],
         echo=["{food}确实很让人上瘾！"],
         near=["昨天做饭盐放多了，太咸了。", "外卖平台的配送费越来越贵。"],
         qs=[("chinese", "我最喜欢吃什么？", "say")]),
    dict(key="sport", slots=lambda r: dict(sport=pick(r, ZH_SPORTS)),
         say=["最近开始练{sport}，每周去两次，感觉身体好多了。"],
         echo=["每周两次{sport}，节奏很好！"],
         near=["肩膀酸了好几天，可能是搬东西拉伤了。", "看了个运动员的纪录片，觉得自己太懒了。"],
         qs=[("chinese", "我最近在练什么运动？", "say"),
             ("chinese", "我每周锻炼几次？", "say")]),
    dict(key="drink", slots=lambda r: dict(drink=pick(r, ZH_DRINKS)),
         say=["我每天早上必须来一杯{drink}，不然整个人都不清醒。"],
         echo=["早上一杯{drink}，很有仪式感。"],
         near=["楼下新开的咖啡店网速很差但是点心好吃。", "去年想戒咖啡因，只坚持了四天。"],
         qs=[("chinese", "我早上习惯喝什么？", "say")]),
    dict(key="manager", slots=lambda r: dict(name=pick(r, ZH_NAMES), name2=None),
         say=["我的领导是{name}，对截止日期很严格，但很公平。"],
         echo=["有个公平的领导很重要。"],
         near=["公司又在传要调整组织架构。", "季度规划会开了整整一下午。"],
         update=dict(slot="name", pool=ZH_NAMES,
                     say=["组织调整之后，我现在向{name2}汇报了。"]),
         qs=[("chinese", "我现在的领导是谁？", "update"),
             ("chinese", "组织调整之前我向谁汇报？", "say")]),
    dict(key="trip", slots=lambda r: dict(city=pick(r, ZH_CITIES), month=r.choice(["三月", "五月", "十月"])),
         say=["我和朋友订了{month}去{city}的机票，好久没一起旅行了。"],
         echo=["{month}去{city}，太棒了！行程定了吗？"],
         near=["安检又把我的牙膏收走了。", "看了去山里的火车票，太贵了。"],
         qs=[("chinese", "我{month}要去哪里旅行？", "say"),
             ("chinese", "去{city}的旅行是几月？", "say")]),
    dict(key="course", slots=lambda r: dict(subj=pick(r, ["日语", "陶艺", "摄影", "吉他"]), name=pick(r, ZH_NAMES)),
         say=["我报了一个晚上的{subj}课，老师叫{name}。"],
         echo=["晚上上{subj}课，很好的放松方式。"],
         near=["我总是买网课然后从来不看完。", "侄女在学校同时学三门外语。"],
         qs=[("chinese", "我的{subj}课老师叫什么？", "say"),
             ("chinese", "我报了什么晚课？", "say")]),
    dict(key="sleep", slots=lambda r: dict(hour=r.choice(["十点", "十点半", "十一点"])),
         say=["工作日我尽量{hour}前上床睡觉，不然第二天完全没精神。"],
         echo=["规律作息真的很重要。"],
         near=["邻居开派对到凌晨两点，我几乎没睡。", "听说睡前看手机不好，但我还是在看。"],
         qs=[("chinese", "我工作日几点睡觉？", "say")]),
]

ZH_FILLER = [
    "今天上班特别乱，开了三个本来发邮件就行的会。",
    "下了一整天雨，我在家煮了汤。",
    "下午总是犯困，有什么提神的办法吗？",
    "周末一下就过去了，什么都没干成。",
    "我在想要不要把客厅刷成深绿色。",
    "昨晚看电影看到一半就睡着了。",
    "手机电池中午就没电了，得换个新的。",
    "地铁停运了，只好在家办公。",
    "朋友过生日，送什么礼物好呢？",
    "终于把邮箱清理干净了，太爽了。",
    "周六要请六个人来家里吃饭，有点紧张。",
    "我想多喝点水，有什么小技巧吗？",
    "坐了一整天腰好疼，需要换把椅子。",
    "家里暖气又出问题了。",
    "开始睡前写日记，感觉心静了很多。",
    "迭代评审挺顺利的，演示居然没出错。",
    "超市的鸡蛋又卖完了。",
    "有没有十五分钟能做好的晚饭？",
    "想学会拒绝额外的工作。",
    "晚上停电了两个小时。",
    "同事今天把小狗带到办公室了。",
    "天天阴天，好烦。",
    "{name}推荐了一个讲历史的播客。",
    "夏天之前得去续签护照。",
    "代码评审拖了好久，改动太大了。",
    "想周末去{city}玩两天，你觉得怎么样？",
    "和全家视频通话，特别热闹。",
    "项目截止日期提前了一周，真好。",
]
ZH_ASSISTANT = ["听起来挺累的，你感觉怎么样？", "谢谢告诉我，我记住了。", "好的！今天还有别的事吗？",
                "太好了。", "哎呀，听起来挺烦的。", "可以试试把事情拆成小步骤。", "这个计划不错。",
                "有意思！有空再跟我多说说。"]

# --------------------------------------------------- mixed English-Chinese

MIX_FAMILIES = [
    dict(key="deploy", slots=lambda r: dict(day=pick(r, ZH_DAYS), day2=None),
         say=["我们 team 每个{day}下午 deploy，所以{day}上午的 standup 总是很赶。"],
         echo=["OK，{day} deploy。前一天会 freeze 代码吗？"],
         near=["今天 CI pipeline 又 fail 了，有人 force push 到 main。", "下午一直在 rollback 一个 migration。"],
         update=dict(slot="day", pool=ZH_DAYS, say=["更新一下：从下个 sprint 开始 release 改到{day2}上午。"]),
         qs=[("mixed", "我们现在哪天 deploy？", "update"),
             ("mixed", "release 改之前是哪天？", "say")]),
    dict(key="lang", slots=lambda r: dict(distinct(r, lang=LANGS, old=LANGS), db=pick(r, DBS)),
         say=["side project 我现在都用 {lang} 写，{old} 的 tooling 太难用了。"],
         echo=["{lang} 写 side project 挺好的，你在做什么？"],
         near=["那个讲 {old} performance 的 talk 其实挺不错。", "组里又在争论 tabs 还是 spaces。"],
         hop=["这个 side project 是个记账 app，数据全部存在 {db} 里。"],
         qs=[("mixed", "我写 side project 用什么语言？", "say"),
             ("mixed", "用 {lang} 写的那个项目用什么 database？", "say+hop")]),
    dict(key="pet", slots=lambda r: dict(kind=pick(r, ZH_PETS), pet=pick(r, PET_NAMES)),
         say=["我们领养了一只{kind}，英文名叫 {pet}，特别黏人。"],
         echo=["{pet} 这个名字好可爱！"],
         near=["邻居家的 dog 又叫了一晚上。", "公园里今天好多 puppy。"],
         qs=[("mixed", "我们的{kind}叫什么 name？", "say"),
             ("mixed", "what is our new pet called？家里新成员叫啥？", "say")]),
    dict(key="allergy", slots=lambda r: dict(food=pick(r, ALLERGENS)),
         say=["提醒一下我对 {food} 过敏，a tiny bit 都不行。"],
         echo=["Noted，推荐菜谱不会有 {food}。"],
         near=["面包店现在每个货架都标了 allergen 信息。", "同事带了 cookies 分给大家。"],
         qs=[("mixed", "我对什么 allergic？", "say"),
             ("mixed", "which ingredient 我不能吃？", "say")]),
    dict(key="manager", slots=lambda r: dict(name=pick(r, NAMES), name2=None),
         say=["我的 manager 是 {name}，deadline 抓得很紧但是很 fair。"],
         echo=["有个 fair 的 manager 很重要。"],
         near=["公司又在传 reorg 的消息。", "quarterly planning 开了一下午。"],
         update=dict(slot="name", pool=NAMES, say=["reorg 之后我现在 report to {name2} 了。"]),
         qs=[("mixed", "我现在的 manager 是谁？", "update"),
             ("mixed", "reorg 之前我的领导是谁？", "say")]),
    dict(key="trip", slots=lambda r: dict(city=pick(r, CITIES), month=pick(r, MONTHS)),
         say=["我跟朋友订了 {month} 去 {city} 的机票，好久没 travel 了。"],
         echo=["{month} 去 {city}，nice！itinerary 定了吗？"],
         near=["安检又把我的 toothpaste 收走了。", "看了去山里的 train ticket，太贵了。"],
         qs=[("mixed", "我 {month} 要飞去哪里？", "say"),
             ("mixed", "去 {city} 的 trip 是几月？", "say")]),
    dict(key="sport", slots=lambda r: dict(sport=pick(r, SPORTS)),
         say=["最近开始玩 {sport}，每周两次，感觉 energy 好多了。"],
         echo=["{sport} 很棒，每周两次刚好。"],
         near=["肩膀酸了好几天，可能搬 sofa 拉伤了。", "看了个 athlete 的纪录片。"],
         qs=[("mixed", "我最近在练什么 sport？", "say")]),
    dict(key="laptop", slots=lambda r: dict(laptop=pick(r, LAPTOPS), editor=pick(r, EDITORS)),
         say=["新的工作电脑是 {laptop}，{editor} 已经配置好了。"],
         echo=["新 {laptop}！配置 {editor} 是一半的乐趣。"],
         near=["IT 今天又强制大家 reset password。", "旧键盘的空格键坏了。"],
         qs=[("mixed", "我的 work laptop 是什么？", "say"),
             ("mixed", "我用哪个 editor 写代码？", "say")]),
    dict(key="food", slots=lambda r: dict(food=pick(r, ZH_FOODS), cuisine=pick(r, CUISINES)),
         say=["周五我们固定去楼下那家 {cuisine} restaurant，已经成习惯了。"],
         echo=["固定的 Friday spot，很棒！"],
         near=["周日做的{food}太咸了，fail。", "外卖 delivery fee 越来越贵。"],
         qs=[("mixed", "我们周五去哪家 restaurant？", "say")]),
]
MIX_FILLER = [
    "今天 meeting 太多了，三个都可以发 email 解决。",
    "下雨了，在家 work from home。",
    "下午特别困，有什么提神的 tips？",
    "周末一下就过去了，todo list 一项都没做。",
    "昨晚看 movie 看到一半睡着了。",
    "phone 电池中午就没电了。",
    "code review 拖了好久，diff 太大了。",
    "sprint review 挺顺利，demo 居然没出错。",
    "想周末去 {city} 玩，你觉得 OK 吗？",
    "{name} 推荐了一个 history podcast。",
    "超市的 eggs 又卖完了。",
    "project deadline 提前了一周。",
    "和家里人 video call，特别热闹。",
    "有没有十五分钟能做好的 dinner？",
    "坐了一整天 back 好疼，需要换把 chair。",
]
MIX_ASSISTANT = ["听起来挺累的，how are you feeling？", "Noted，我记住了。", "Sounds good！还有别的吗？",
                 "太好了！", "哎呀，that sounds frustrating。", "可以试试 break it down into small steps。"]

# ------------------------------------------------------------ generation

EN_STOP = set("""a about above after again against all am an and any are as at be because been
before being below between both but by can could did do does doing down during each few for from
further had has have having he her here hers herself him himself his how i if in into is it its
itself just me more most my myself no nor not now of off on once only or other our ours ourselves
out over own same she should so some such than that the their theirs them themselves then there
these they this those through to too under until up very was we were what when where which while
who whom why will with would you your yours yourself yourselves usually lately these days""".split())


def content_words(text):
    return {w for w in re.findall(r"[a-z]+", text.lower()) if w not in EN_STOP and len(w) > 1}


def shares_content(question, evidence):
    """Whether an English question shares a content word (or a 4-letter
    stem) with the evidence, or a Chinese one a character bigram."""
    qw, ew = content_words(question), content_words(evidence)
    if qw & ew:
        return True
    if {w[:4] for w in qw if len(w) >= 4} & {w[:4] for w in ew if len(w) >= 4}:
        return True

    def bigrams(t):
        runs = re.findall(r"[\u4e00-\u9fff]+", t)
        return {r[i:i + 2] for r in runs for i in range(len(r) - 1)}

    return bool(bigrams(question) & bigrams(evidence))


def fill(template, slots):
    return template.format(**slots)


def make_conversation(rng, cid, language):
    if language == "en":
        families, filler, assistant = EN_FAMILIES, EN_FILLER, EN_ASSISTANT
        n_fam = rng.randint(11, 13)
        names, cities = NAMES, CITIES
    elif language == "zh":
        families, filler, assistant = ZH_FAMILIES, ZH_FILLER, ZH_ASSISTANT
        n_fam = rng.randint(9, 11)
        names, cities = ZH_NAMES, ZH_CITIES
    else:
        families, filler, assistant = MIX_FAMILIES, MIX_FILLER, MIX_ASSISTANT
        n_fam = rng.randint(8, 9)
        names, cities = NAMES, CITIES
    chosen = rng.sample(families, n_fam)
    n_sessions = rng.randint(5, 8)
    year, month, day = 2025, rng.randint(1, 6), rng.randint(1, 20)
    dates = []
    for _ in range(n_sessions):
        dates.append(f"{year}-{month:02d}-{day:02d}")
        day += rng.randint(3, 12)
        while day > 28:
            day -= 28
            month += 1
    # Plan: each family's statements go to sessions; an update or hop goes
    # to a strictly later session than the first statement.
    plan = {s: [] for s in range(n_sessions)}  # session -> [(family idx, part)]
    fam_slots = []
    for fi, fam in enumerate(chosen):
        slots = fam["slots"](rng)
        if "update" in fam:
            up = fam["update"]
            slots[up["slot"] + "2"] = pick(rng, up["pool"], avoid=(slots[up["slot"]],))
        fam_slots.append(slots)
        second = "update" in fam or "hop" in fam
        first = rng.randrange(0, n_sessions - 1 if second else n_sessions)
        plan[first].append((fi, "say"))
        if second:
            later = rng.randrange(first + 1, n_sessions)
            plan[later].append((fi, "update" if "update" in fam else "hop"))
        # near-miss distractors in two random sessions
        for _ in range(2):
            plan[rng.randrange(n_sessions)].append((fi, "near"))
    sessions = []
    where = {}  # (fi, part) -> turn id
    for s in range(n_sessions):
        sid = f"{cid}-s{s + 1}"
        turns = []

        def add(speaker, text):
            tid = f"{sid}-t{len(turns) + 1}"
            turns.append(dict(id=tid, speaker=speaker, text=text))
            return tid

        items = plan[s][:]
        n_filler = rng.randint(12, 22)
        items += [(None, "filler")] * n_filler
        rng.shuffle(items)
        for fi, part in items:
            if fi is None:
                slots = dict(name=rng.choice(names), city=rng.choice(cities),
                             dish=rng.choice(DISHES), cuisine=rng.choice(CUISINES))
                add("user", fill(rng.choice(filler), slots))
                add("assistant", rng.choice(assistant))
                continue
            fam, slots = chosen[fi], fam_slots[fi]
            if part == "near":
                add("user", fill(rng.choice(fam["near"]), slots))
                add("assistant", rng.choice(assistant))
                continue
            if part == "say":
                text = fill(rng.choice(fam["say"]), slots)
            elif part == "update":
                text = fill(rng.choice(fam["update"]["say"]), slots)
            else:
                text = fill(rng.choice(fam["hop"]), slots)
            where[(fi, part)] = add("user", text)
            # The assistant echoes the user's words half of the time.
            if part == "say" and rng.random() < 0.5:
                add("assistant", fill(rng.choice(fam["echo"]), slots))
            else:
                add("assistant", rng.choice(assistant))
        sessions.append(dict(id=sid, date=dates[s], turns=turns))
    texts = {t["id"]: t["text"] for sess in sessions for t in sess["turns"]}
    questions = []
    for fi, fam in enumerate(chosen):
        slots = fam_slots[fi]
        for qtype, template, which in fam["qs"]:
            parts = which.split("+")
            evidence = [where[(fi, p)] for p in parts]
            question = fill(template, slots)
            if qtype == "paraphrase":
                for e in evidence:
                    if shares_content(question, texts[e]):
                        FAILURES.add((question, texts[e]))
            questions.append(dict(id=f"{cid}-q{len(questions) + 1}", type=qtype,
                                  question=question, evidence=evidence))
    return dict(id=cid, language=language, sessions=sessions, questions=questions)


FAILURES = set()


def main():
    rng = random.Random(SEED)
    languages = ["en"] * N_EN + ["zh"] * N_ZH + ["mixed"] * N_MIX
    out = {"dev": [], "test": []}
    seen = {"en": 0, "zh": 0, "mixed": 0}
    for i, language in enumerate(languages):
        cid = f"c{i + 1:02d}"
        conv = make_conversation(rng, cid, language)
        # Fixed split: alternate within each language.
        split = "dev" if seen[language] % 2 == 0 else "test"
        seen[language] += 1
        conv = dict(id=conv["id"], split=split, language=language, sessions=conv["sessions"],
                    questions=conv["questions"])
        out[split].append(conv)
    if FAILURES:
        for question, evidence in sorted(FAILURES):
            print(f"paraphrase shares a word: {question!r} / {evidence!r}")
        raise SystemExit(1)
    for split, convs in out.items():
        path = os.path.join(HERE, f"{split}.jsonl")
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            for conv in convs:
                f.write(json.dumps(conv, ensure_ascii=False, sort_keys=False) + "\n")
        turns = sum(len(s["turns"]) for c in convs for s in c["sessions"])
        qs = [q for c in convs for q in c["questions"]]
        kinds = {}
        for q in qs:
            kinds[q["type"]] = kinds.get(q["type"], 0) + 1
        print(f"{split}: {len(convs)} conversations, {turns} turns, {len(qs)} questions {kinds}")


if __name__ == "__main__":
    main()
