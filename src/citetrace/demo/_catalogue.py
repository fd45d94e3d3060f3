"""The demo's questions: each with a scripted plan, the claims its report makes, and hand-computed signals.

The default ``citetrace demo`` runs the six default questions; together they show every fault the issue
asks for (an empty search, a 429, a 404, a timeout, a cookie wall, a repeated query, a citation no search
returned, a citation never fetched) plus a clean run. ``--questions all`` adds two more clean runs and a
rephrase loop that passes the 10-search threshold.

Counting rules used for the hand-written ``Expected`` values (they match the summary's definitions):
searches and reads count every call, whatever its status; ``failed_reads`` is a fetch whose status is not
ok (404, timeout and cookie wall all count); ``repeat_queries`` counts a query seen again after folding case
and whitespace; ``distinct_urls_seen`` is the union of the pinned search results; failure reasons use the
default thresholds (more than 10 searches, more than 1 failed read).
"""

from __future__ import annotations

from citetrace import names as N
from citetrace.demo import _faults as F
from citetrace.demo._plan import Call, Claim, Expected, Question, Read, Search

__all__ = ["QUESTIONS", "DEFAULT_QUESTIONS", "question", "select_questions"]

OK, EMPTY, ERROR, RATE = N.STATUS_OK, N.STATUS_EMPTY, N.STATUS_ERROR, N.STATUS_RATE_LIMITED


def _s(status: str, http: int | None, query: str) -> Call:
    return Call(N.TOOL_KIND_SEARCH, status, http, query)


def _r(status: str, http: int | None, slug: str) -> Call:
    return Call(N.TOOL_KIND_FETCH, status, http, slug)


# --- storage: the clean run ----------------------------------------------------------------------------
_Q_STORAGE = "Marrow Valley grid battery storage capacity 2024"
STORAGE = Question(
    id="storage",
    question="How much grid battery storage did Marrow Valley add in 2024?",
    topic="batteries",
    steps=(
        Search(_Q_STORAGE, ("marrow-valley-storage-2024", "grid-storage-outlook-2016", "storage-industry-jobs-2025",
                            "battery-safety-code", "halden-storage-site-opens")),
        Read("marrow-valley-storage-2024"),
        Read("halden-storage-site-opens"),
    ),
    claims=(
        Claim("Installed grid battery capacity in Marrow Valley rose from 410 MW at the end of 2023 to 860 MW "
              "by October 2024", ("marrow-valley-storage-2024",)),
        Claim("The largest addition, Kestrel Energy's Halden site, provides 240 MW and 960 MWh of storage",
              ("marrow-valley-storage-2024", "halden-storage-site-opens")),
        Claim("Batteries supplied 6.4 % of evening peak demand in September 2024", ("marrow-valley-storage-2024",)),
        Claim("The Halden site created 38 permanent jobs and cost EUR 312 million to build",
              ("halden-storage-site-opens",), label="PARTIAL"),
    ),
    expected=Expected(1, 2, 0, 0, 0, 0, 5, 2, 0, 0, (),
                      (_s(OK, None, _Q_STORAGE), _r(OK, 200, "marrow-valley-storage-2024"),
                       _r(OK, 200, "halden-storage-site-opens")),
                      ("marrow-valley-storage-2024", "halden-storage-site-opens")),
    expected_clean=Expected(1, 2, 0, 0, 0, 0, 5, 2, 0, 0, (),
                            (_s(OK, None, _Q_STORAGE), _r(OK, 200, "marrow-valley-storage-2024"),
                             _r(OK, 200, "halden-storage-site-opens")),
                            ("marrow-valley-storage-2024", "halden-storage-site-opens")),
)

# --- coffee: an empty search and a repeated query -------------------------------------------------------
_Q_TYPO = "altavrea cofee harvst"
_Q_HARVEST = "Altavera coffee harvest 2024"
_Q_HARVEST_AGAIN = "altavera  COFFEE harvest 2024 "
_Q_RAIN = "Altavera rainfall 2024"
_HARVEST_RESULTS = ("altavera-harvest-2024", "altavera-prices-2015", "altavera-export-prices", "altavera-roastery",
                    "altavera-fair-trade")
COFFEE = Question(
    id="coffee",
    question="How large was the Altavera coffee harvest in 2024, and what did the weather do to it?",
    topic="coffee",
    steps=(
        Search(_Q_TYPO, (), fault=F.EMPTY_SEARCH),
        Search(_Q_HARVEST, _HARVEST_RESULTS),
        Read("altavera-harvest-2024"),
        Search(_Q_HARVEST_AGAIN, _HARVEST_RESULTS, fault=F.REPEAT_QUERY),
        Search(_Q_RAIN, ("altavera-rainfall-2024", "altavera-leaf-rust", "altavera-export-prices",
                         "altavera-fair-trade", "altavera-harvest-2024")),
        Read("altavera-rainfall-2024"),
    ),
    claims=(
        Claim("The Altavera Coffee Cooperative harvested 18,400 tonnes of green coffee in 2024, up 9 % from 2023",
              ("altavera-harvest-2024",)),
        Claim("Member farmers were paid an average of $4.12 per kilogram", ("altavera-harvest-2024",)),
        Claim("Rainfall was 12 % below the ten-year average, at 1,940 mm", ("altavera-rainfall-2024",)),
        Claim("The cooperative plans to export half of its harvest to Japan", ("altavera-harvest-2024",),
              label="ABSENT"),
    ),
    expected=Expected(4, 2, 1, 1, 0, 0, 7, 2, 0, 0, (N.REASON_EMPTY_SEARCH,),
                      (_s(EMPTY, None, _Q_TYPO), _s(OK, None, _Q_HARVEST), _r(OK, 200, "altavera-harvest-2024"),
                       _s(OK, None, _Q_HARVEST_AGAIN), _s(OK, None, _Q_RAIN),
                       _r(OK, 200, "altavera-rainfall-2024")),
                      ("altavera-harvest-2024", "altavera-rainfall-2024")),
    expected_clean=Expected(2, 2, 0, 0, 0, 0, 7, 2, 0, 0, (),
                            (_s(OK, None, _Q_HARVEST), _r(OK, 200, "altavera-harvest-2024"), _s(OK, None, _Q_RAIN),
                             _r(OK, 200, "altavera-rainfall-2024")),
                            ("altavera-harvest-2024", "altavera-rainfall-2024")),
    faults=(F.EMPTY_SEARCH, F.REPEAT_QUERY),
)

# --- bikeshare: a 429 and a cookie wall; two sources that disagree ---------------------------------------
_Q_BIKE_FAST = "HalvernCycle trips 2024"
_Q_BIKE = "Port Halvern bike share trips 2024"
BIKESHARE = Question(
    id="bikeshare",
    question="How many trips did Port Halvern's bike-share scheme make in 2024?",
    topic="bikeshare",
    steps=(
        Search(_Q_BIKE_FAST, (), fault=F.RATE_LIMIT),
        Search(_Q_BIKE, ("halverncycle-ridership-2024", "halverncycle-launch-2017", "halverncycle-safety-2024",
                         "halverncycle-funding", "halverncycle-city-audit")),
        Read("halverncycle-safety-2024", fault=F.COOKIE_WALL),
        Read("halverncycle-ridership-2024"),
        Read("halverncycle-city-audit"),
    ),
    claims=(
        Claim("HalvernCycle recorded 4.2 million trips in 2024, up 17 % from 2023", ("halverncycle-ridership-2024",)),
        Claim("The scheme ended the year with 2,600 bikes and 310 docking stations",
              ("halverncycle-ridership-2024",)),
        Claim("A city audit counted 3.8 million trips because it excluded trips shorter than two minutes",
              ("halverncycle-city-audit",)),
        Claim("The city audit confirmed the operator's figure of 4.2 million trips", ("halverncycle-city-audit",),
              label="CONTRADICTED"),
        Claim("Collisions involving cyclists fell 22 % in 2024", ("halverncycle-safety-2024",)),
    ),
    expected=Expected(2, 3, 0, 0, 1, 1, 5, 2, 0, 0, (N.REASON_RATE_LIMITED,),
                      (_s(RATE, 429, _Q_BIKE_FAST), _s(OK, None, _Q_BIKE), _r(EMPTY, 200, "halverncycle-safety-2024"),
                       _r(OK, 200, "halverncycle-ridership-2024"), _r(OK, 200, "halverncycle-city-audit")),
                      ("halverncycle-ridership-2024", "halverncycle-city-audit")),
    expected_clean=Expected(1, 2, 0, 0, 0, 0, 5, 2, 0, 0, (),
                            (_s(OK, None, _Q_BIKE), _r(OK, 200, "halverncycle-ridership-2024"),
                             _r(OK, 200, "halverncycle-city-audit")),
                            ("halverncycle-ridership-2024", "halverncycle-city-audit")),
    faults=(F.RATE_LIMIT, F.COOKIE_WALL),
)

# --- lake: a 404 and a timeout (two failed reads) ------------------------------------------------------
_Q_LAKE = "Lake Orrin water quality monitoring fisheries"
LAKE = Question(
    id="lake",
    question="Is the water quality of Lake Orrin improving?",
    topic="lake",
    steps=(
        Search(_Q_LAKE, ("lake-orrin-phosphorus-trend", "lake-orrin-monitoring-buoys", "lake-orrin-fisheries-2024",
                         "lake-orrin-blooms-2024", "lake-orrin-beaches-2024")),
        Read("lake-orrin-monitoring-buoys", fault=F.NOT_FOUND),
        Read("lake-orrin-fisheries-2024", fault=F.TIMEOUT),
        Read("lake-orrin-blooms-2024"),
        Read("lake-orrin-phosphorus-trend"),
    ),
    claims=(
        Claim("Lake Orrin had 41 days with harmful algal blooms in 2024, down from 63 in 2023",
              ("lake-orrin-blooms-2024",)),
        Claim("Phosphorus fell from 52 micrograms per litre in 2020 to 38 in 2024", ("lake-orrin-phosphorus-trend",)),
        Claim("The regional target is 30 micrograms per litre by 2025", ("lake-orrin-phosphorus-trend",),
              label="CONTRADICTED"),
        Claim("Six monitoring buoys now measure the lake every 15 minutes", ("lake-orrin-monitoring-buoys",)),
    ),
    expected=Expected(1, 4, 0, 0, 2, 0, 5, 2, 0, 0, (N.REASON_FAILED_READS,),
                      (_s(OK, None, _Q_LAKE), _r(ERROR, 404, "lake-orrin-monitoring-buoys"),
                       _r(ERROR, None, "lake-orrin-fisheries-2024"), _r(OK, 200, "lake-orrin-blooms-2024"),
                       _r(OK, 200, "lake-orrin-phosphorus-trend")),
                      ("lake-orrin-blooms-2024", "lake-orrin-phosphorus-trend")),
    expected_clean=Expected(1, 2, 0, 0, 0, 0, 5, 2, 0, 0, (),
                            (_s(OK, None, _Q_LAKE), _r(OK, 200, "lake-orrin-blooms-2024"),
                             _r(OK, 200, "lake-orrin-phosphorus-trend")),
                            ("lake-orrin-blooms-2024", "lake-orrin-phosphorus-trend")),
    faults=(F.NOT_FOUND, F.TIMEOUT),
)

# --- fab: the report cites a page no search returned -----------------------------------------------------
_Q_FAB = "Tessellate Microsystems fab investment jobs"
FAB = Question(
    id="fab",
    question="What will the Tessellate chip fab bring to Grenvik?",
    topic="chips",
    steps=(
        Search(_Q_FAB, ("tessellate-union-jobs", "tessellate-grenvik-fab", "tessellate-production-delay",
                        "tessellate-water-use", "tessellate-state-aid")),
        Read("tessellate-grenvik-fab"),
        Read("tessellate-union-jobs"),
        Read("grenvik-housing-shortage", fault=F.UNCITED_CITATION, from_memory=True),
    ),
    claims=(
        Claim("Tessellate Microsystems will invest EUR 4.8 billion in the Grenvik fab", ("tessellate-grenvik-fab",)),
        Claim("The company says the plant will employ 2,100 people by 2027, while the union expects about 1,600 "
              "permanent jobs", ("tessellate-grenvik-fab", "tessellate-union-jobs")),
        Claim("Grenvik will need 3,400 new homes by 2030, and rents rose 11 % in 2024",
              ("grenvik-housing-shortage",), fault=F.UNCITED_CITATION),
    ),
    expected=Expected(1, 3, 0, 0, 0, 0, 5, 3, 1, 0, (N.REASON_UNCITED_URL,),
                      (_s(OK, None, _Q_FAB), _r(OK, 200, "tessellate-grenvik-fab"),
                       _r(OK, 200, "tessellate-union-jobs"), _r(OK, 200, "grenvik-housing-shortage")),
                      ("tessellate-grenvik-fab", "tessellate-union-jobs", "grenvik-housing-shortage")),
    expected_clean=Expected(1, 2, 0, 0, 0, 0, 5, 2, 0, 0, (),
                            (_s(OK, None, _Q_FAB), _r(OK, 200, "tessellate-grenvik-fab"),
                             _r(OK, 200, "tessellate-union-jobs")),
                            ("tessellate-grenvik-fab", "tessellate-union-jobs")),
    faults=(F.UNCITED_CITATION,),
)

# --- prices: the report cites a search result it never read ---------------------------------------------
_Q_PRICES = "battery pack price 2023"
PRICES = Question(
    id="prices",
    question="What did a lithium-ion battery pack cost in 2023?",
    topic="batteries",
    steps=(
        Search(_Q_PRICES, ("battery-pack-prices-2023", "battery-prices-council-survey", "marrow-valley-storage-2024",
                           "battery-safety-code", "halden-storage-site-opens")),
        Read("battery-pack-prices-2023"),
    ),
    claims=(
        Claim("The average lithium-ion battery pack cost $139 per kWh in 2023, down 14 % from 2022",
              ("battery-pack-prices-2023",)),
        Claim("Stationary storage packs were cheaper, at $126 per kWh", ("battery-pack-prices-2023",)),
        Claim("A council survey of 48 companies found a higher average of $151 per kWh",
              ("battery-prices-council-survey",), fault=F.UNFETCHED_CITATION),
    ),
    expected=Expected(1, 1, 0, 0, 0, 0, 5, 2, 0, 1, (N.REASON_CITED_NOT_FETCHED,),
                      (_s(OK, None, _Q_PRICES), _r(OK, 200, "battery-pack-prices-2023")),
                      ("battery-pack-prices-2023", "battery-prices-council-survey")),
    expected_clean=Expected(1, 1, 0, 0, 0, 0, 5, 1, 0, 0, (),
                            (_s(OK, None, _Q_PRICES), _r(OK, 200, "battery-pack-prices-2023")),
                            ("battery-pack-prices-2023",)),
    faults=(F.UNFETCHED_CITATION,),
)

# --- extras (``--questions all``) -----------------------------------------------------------------------
_Q_MEMBERS = "HalvernCycle annual members"
_MEMBERS_CALLS = (_s(OK, None, _Q_MEMBERS), _r(OK, 200, "halverncycle-members-2025"),
                  _r(OK, 200, "halverncycle-ebikes"))
MEMBERS = Question(
    id="members",
    question="How many people are members of HalvernCycle, and what do they pay?",
    topic="bikeshare",
    steps=(
        Search(_Q_MEMBERS, ("halverncycle-members-2025", "halverncycle-launch-2017", "halverncycle-ebikes",
                            "halverncycle-funding", "halverncycle-ridership-2024")),
        Read("halverncycle-members-2025"),
        Read("halverncycle-ebikes"),
    ),
    claims=(
        Claim("HalvernCycle had 58,000 annual members at the start of 2025", ("halverncycle-members-2025",)),
        Claim("Members made 61 % of all trips in 2024", ("halverncycle-members-2025",)),
        Claim("A standard annual membership costs EUR 60, and students pay EUR 30", ("halverncycle-members-2025",),
              label="CONTRADICTED"),
        Claim("E-bikes account for 35 % of all trips", ("halverncycle-ebikes",)),
    ),
    expected=Expected(1, 2, 0, 0, 0, 0, 5, 2, 0, 0, (), _MEMBERS_CALLS,
                      ("halverncycle-members-2025", "halverncycle-ebikes")),
    expected_clean=Expected(1, 2, 0, 0, 0, 0, 5, 2, 0, 0, (), _MEMBERS_CALLS,
                            ("halverncycle-members-2025", "halverncycle-ebikes")),
    default=False,
)

_Q_PAY = "Altavera coffee price per kilogram farmers"
_PAY_CALLS = (_s(OK, None, _Q_PAY), _r(OK, 200, "altavera-prices-2015"), _r(OK, 200, "altavera-harvest-2024"))
PAY = Question(
    id="pay",
    question="How much are Altavera coffee farmers paid per kilogram?",
    topic="coffee",
    steps=(
        Search(_Q_PAY, ("altavera-prices-2015", "altavera-export-prices", "altavera-harvest-2024",
                        "altavera-fair-trade", "altavera-leaf-rust")),
        Read("altavera-prices-2015"),
        Read("altavera-harvest-2024"),
    ),
    claims=(
        Claim("Altavera farmers are currently paid an average of $2.10 per kilogram", ("altavera-prices-2015",)),
        Claim("For the 2024 harvest, members were paid an average of $4.12 per kilogram",
              ("altavera-harvest-2024",)),
    ),
    expected=Expected(1, 2, 0, 0, 0, 0, 5, 2, 0, 0, (), _PAY_CALLS,
                      ("altavera-prices-2015", "altavera-harvest-2024")),
    expected_clean=Expected(1, 2, 0, 0, 0, 0, 5, 2, 0, 0, (), _PAY_CALLS,
                            ("altavera-prices-2015", "altavera-harvest-2024")),
    default=False,
)

_LOOP_QUERIES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Lake Orrin clean-up cost", ("lake-orrin-cleanup-funding", "lake-orrin-report-2012",
                                  "lake-orrin-monitoring-buoys", "lake-orrin-fisheries-2024",
                                  "lake-orrin-phosphorus-trend")),
    ("Lake Orrin clean-up budget", ("lake-orrin-cleanup-funding", "lake-orrin-report-2012",
                                    "lake-orrin-fisheries-2024", "lake-orrin-monitoring-buoys",
                                    "lake-orrin-phosphorus-trend")),
    ("Lake Orrin restoration spending", ("lake-orrin-fisheries-2024", "lake-orrin-phosphorus-trend",
                                         "lake-orrin-blooms-2024", "lake-orrin-monitoring-buoys",
                                         "lake-orrin-beaches-2024")),
    ("Orrin Basin Authority programme budget", ("lake-orrin-cleanup-funding", "lake-orrin-blooms-2024",
                                                "lake-orrin-monitoring-buoys", "lake-orrin-fisheries-2024",
                                                "lake-orrin-beaches-2024")),
    ("how much does the Lake Orrin clean-up cost", ("lake-orrin-cleanup-funding", "lake-orrin-report-2012",
                                                    "lake-orrin-monitoring-buoys", "lake-orrin-fisheries-2024",
                                                    "lake-orrin-phosphorus-trend")),
    ("Lake Orrin wetland restoration cost", ("lake-orrin-cleanup-funding", "lake-orrin-monitoring-buoys",
                                             "lake-orrin-report-2012", "lake-orrin-fisheries-2024",
                                             "lake-orrin-phosphorus-trend")),
    ("Lake Orrin clean-up programme money spent", ("lake-orrin-cleanup-funding", "lake-orrin-report-2012",
                                                   "lake-orrin-fisheries-2024", "lake-orrin-monitoring-buoys",
                                                   "lake-orrin-phosphorus-trend")),
    ("Orrin lake cleanup euros", ("lake-orrin-fisheries-2024", "lake-orrin-phosphorus-trend",
                                  "lake-orrin-blooms-2024", "lake-orrin-monitoring-buoys",
                                  "lake-orrin-beaches-2024")),
    ("Lake Orrin sewage treatment upgrade cost", ("lake-orrin-cleanup-funding", "lake-orrin-monitoring-buoys",
                                                  "lake-orrin-report-2012", "lake-orrin-fisheries-2024",
                                                  "lake-orrin-phosphorus-trend")),
    ("Lake Orrin buffer strips payment", ("lake-orrin-cleanup-funding", "lake-orrin-fisheries-2024",
                                          "lake-orrin-phosphorus-trend", "lake-orrin-blooms-2024",
                                          "lake-orrin-monitoring-buoys")),
    ("Lake Orrin clean-up total budget 2028", ("lake-orrin-cleanup-funding", "lake-orrin-report-2012",
                                               "lake-orrin-beaches-2024", "lake-orrin-fisheries-2024",
                                               "lake-orrin-monitoring-buoys")),
)
LOOP = Question(
    id="loop",
    question="How much does the Lake Orrin clean-up cost?",
    topic="lake",
    steps=(
        Search(*_LOOP_QUERIES[0]),
        *(Search(q, r, fault=F.SEARCH_LOOP) for q, r in _LOOP_QUERIES[1:]),
        Read("lake-orrin-cleanup-funding"),
    ),
    claims=(
        Claim("The Lake Orrin clean-up programme has a budget of EUR 86 million for 2021 to 2028",
              ("lake-orrin-cleanup-funding",)),
        Claim("EUR 47 million had been spent by April 2024", ("lake-orrin-cleanup-funding",)),
    ),
    expected=Expected(11, 1, 0, 0, 0, 0, 7, 1, 0, 0, (N.REASON_TOO_MANY_SEARCHES,),
                      (*(_s(OK, None, q) for q, _ in _LOOP_QUERIES), _r(OK, 200, "lake-orrin-cleanup-funding")),
                      ("lake-orrin-cleanup-funding",)),
    expected_clean=Expected(1, 1, 0, 0, 0, 0, 5, 1, 0, 0, (),
                            (_s(OK, None, _LOOP_QUERIES[0][0]), _r(OK, 200, "lake-orrin-cleanup-funding")),
                            ("lake-orrin-cleanup-funding",)),
    default=False,
    faults=(F.SEARCH_LOOP,),
)

QUESTIONS: tuple[Question, ...] = (STORAGE, COFFEE, BIKESHARE, LAKE, FAB, PRICES, MEMBERS, PAY, LOOP)
"""Every demo question, default ones first."""

DEFAULT_QUESTIONS: tuple[Question, ...] = tuple(q for q in QUESTIONS if q.default)
"""What ``citetrace demo`` runs without ``--questions``."""


def question(qid: str) -> Question:
    """One question by id; KeyError naming the valid ids."""
    for q in QUESTIONS:
        if q.id == qid:
            return q
    raise KeyError(f"no demo question {qid!r}; choose from {', '.join(q.id for q in QUESTIONS)}")


def select_questions(spec: str | None) -> tuple[Question, ...]:
    """Questions from ``"default"``, ``"all"`` or a comma-separated list of ids (ValueError if unknown)."""
    raw = (spec or "default").strip().lower()
    if raw == "default":
        return DEFAULT_QUESTIONS
    if raw == "all":
        return QUESTIONS
    ids = [s.strip() for s in raw.split(",") if s.strip()]
    unknown = [i for i in ids if i not in {q.id for q in QUESTIONS}]
    if unknown or not ids:
        raise ValueError(f"unknown question(s) {', '.join(unknown) or '(none given)'}; "
                         f"choose from {', '.join(q.id for q in QUESTIONS)}, default or all")
    return tuple(question(i) for i in ids)
