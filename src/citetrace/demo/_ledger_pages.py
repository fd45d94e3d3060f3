"""The ledger demo's pages: a fictional SaaS vendor, a news site and an analyst, some pages in two versions.

Each page has a source class, and one or more versions (the site serves the next version on each later
fetch, so "the vendor updated its page" happens between two reads). Each version lists the spans that bear
on a demo claim and what they say about it: that is the scripted reading a model would do.
"""

from __future__ import annotations

from dataclasses import dataclass

from citetrace import names

__all__ = ["LedgerPage", "PageVersion", "Stance", "LEDGER_PAGES", "ledger_page", "CLAIMS"]

CLAIMS = {
    "sso": "Acme Cloud supports SSO on the Business and Enterprise tiers.",
    "uptime": "Acme Cloud guarantees 99.9% monthly uptime.",
    "price": "A Business seat on Acme Cloud costs $12 per month.",
    "customers": "Acme Cloud has more than 40,000 business customers.",
}
"""The demo's atomic claims by key."""


@dataclass(frozen=True)
class Stance:
    """A span of a page and what it says about one claim (``supported`` or ``contradicted``)."""

    claim: str
    span: str
    label: str


@dataclass(frozen=True)
class PageVersion:
    published: str
    paragraphs: tuple[str, ...]
    stances: tuple[Stance, ...] = ()


@dataclass(frozen=True)
class LedgerPage:
    slug: str
    title: str
    publisher: str
    source_class: str
    keywords: tuple[str, ...]
    versions: tuple[PageVersion, ...]


_S, _C = names.ENTAIL_SUPPORTED, names.ENTAIL_CONTRADICTED

LEDGER_PAGES: tuple[LedgerPage, ...] = (
    LedgerPage("acme-plans", "Acme Cloud plans", "Acme Cloud", "vendor_docs",
               ("acme", "sso", "tiers", "plans", "price", "seat", "business", "enterprise"), (
        PageVersion("2026-02-10", (
            "Acme Cloud comes in Starter, Business and Enterprise tiers.",
            "Single sign-on (SSO) is available on the Business and Enterprise tiers.",
            "Business seats cost $12 per month, billed annually.",
        ), (Stance("sso", "Single sign-on (SSO) is available on the Business and Enterprise tiers.", _S),
            Stance("price", "Business seats cost $12 per month, billed annually.", _S))),
        PageVersion("2026-09-15", (
            "Acme Cloud comes in Starter, Business and Enterprise tiers. Updated 15 September 2026.",
            "As of September 2026, SSO is included on the Business and Enterprise tiers at no extra cost.",
            "Business seats cost $12 per month, billed annually.",
        ), (Stance("sso", "As of September 2026, SSO is included on the Business and Enterprise tiers at no extra"
                   " cost.", _S),
            Stance("price", "Business seats cost $12 per month, billed annually.", _S))),
    )),
    LedgerPage("ledgerwatch-acme-review", "LedgerWatch reviews Acme Cloud", "LedgerWatch", "analysis",
               ("acme", "sso", "tiers", "review", "enterprise", "business"), (
        PageVersion("2026-05-20", (
            "We tested Acme Cloud for four weeks across all three tiers.",
            "In our testing, SSO remains limited to the Enterprise tier; Business customers must upgrade.",
        ), (Stance("sso", "In our testing, SSO remains limited to the Enterprise tier; Business customers must"
                   " upgrade.", _C),)),
    )),
    LedgerPage("acme-sla", "Acme Cloud service level agreement", "Acme Cloud", "vendor_docs",
               ("acme", "uptime", "sla", "service", "level", "guarantee"), (
        PageVersion("2026-01-05", (
            "The Acme Cloud service level agreement covers every paid tier.",
            "Acme Cloud guarantees 99.9% monthly uptime, with service credits below that.",
        ), (Stance("uptime", "Acme Cloud guarantees 99.9% monthly uptime, with service credits below that.", _S),)),
        PageVersion("2026-08-01", (
            "The Acme Cloud service level agreement, revised August 2026, covers every paid tier.",
            "The guaranteed monthly uptime is now 99.5%, with service credits below that.",
        ), (Stance("uptime", "The guaranteed monthly uptime is now 99.5%, with service credits below that.", _C),)),
    )),
    LedgerPage("cloudpulse-acme-uptime", "Acme Cloud promises 99.9% uptime", "CloudPulse News", "news",
               ("acme", "uptime", "sla", "guarantee", "news"), (
        PageVersion("2026-03-01", (
            "Acme Cloud told customers this week that its cloud will stay up.",
            "The company said it guarantees 99.9% monthly uptime on every paid tier.",
        ), (Stance("uptime", "The company said it guarantees 99.9% monthly uptime on every paid tier.", _S),)),
    )),
    LedgerPage("ledgerwatch-acme-contracts", "What Acme Cloud contracts really promise", "LedgerWatch", "analysis",
               ("acme", "uptime", "sla", "contracts", "guarantee", "analysis"), (
        PageVersion("2026-10-01", (
            "LedgerWatch read twelve current Acme Cloud contracts.",
            "Customers on current contracts are still guaranteed 99.9% monthly uptime.",
        ), (Stance("uptime", "Customers on current contracts are still guaranteed 99.9% monthly uptime.", _S),)),
    )),
    LedgerPage("cloudpulse-acme-pricing", "Acme Cloud keeps its prices", "CloudPulse News", "news",
               ("acme", "price", "pricing", "seat", "business", "news"), (
        PageVersion("2026-04-12", (
            "Acme Cloud will not raise prices this year, a spokesperson said.",
            "A Business seat stays at $12 a month, Acme confirmed.",
        ), (Stance("price", "A Business seat stays at $12 a month, Acme confirmed.", _S),)),
    )),
    LedgerPage("acme-about", "About Acme Cloud", "Acme Cloud", "vendor_docs",
               ("acme", "customers", "business", "about"), (
        PageVersion("2026-06-30", (
            "Acme Cloud was founded in 2019 and is based in Halden.",
            "Acme Cloud has more than 40,000 business customers in 30 countries.",
        ), (Stance("customers", "Acme Cloud has more than 40,000 business customers in 30 countries.", _S),)),
    )),
    LedgerPage("cloudpulse-acme-hiring", "Acme Cloud is hiring", "CloudPulse News", "news",
               ("acme", "customers", "hiring", "news", "business"), (
        PageVersion("2026-07-14", (
            "Acme Cloud plans to hire 200 engineers in Halden next year.",
            "The company did not say how many customers it has.",
        )),
    )),
    LedgerPage("ledgerwatch-acme-market", "Acme Cloud in the market", "LedgerWatch", "analysis",
               ("acme", "customers", "market", "analysis", "business"), (
        PageVersion("2026-07-30", (
            "Acme Cloud competes with larger suites on price.",
            "Its growth is steady, though the customer count could not be confirmed.",
        )),
    )),
)


def ledger_page(slug: str) -> LedgerPage:
    """One page by slug; KeyError naming it."""
    for p in LEDGER_PAGES:
        if p.slug == slug:
            return p
    raise KeyError(f"no ledger demo page {slug!r}")
