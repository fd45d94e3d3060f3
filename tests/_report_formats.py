"""Report texts in the formats deep-research agents write, shared by the capture and eval format tests."""

from __future__ import annotations

BLS = "https://www.bls.gov/cpi/"
FED = "https://www.federalreserve.gov/monetarypolicy.htm"
FOMC = "https://www.federalreserve.gov/newsevents/pressreleases/monetary20231213a.htm"
OTHER = "https://example.org/other"

NEXT_LINE = f"""Inflation fell to 3.1% in 2024 [2]. The Fed held rates in December [1].

### Sources
[1] Federal Reserve: Monetary Policy
URL: {FED}
[2] Bureau of Labor Statistics: Consumer Price Index
URL: {BLS}
"""
"""open_deep_research-style: ``[n] Title`` with the URL on the line below; [2] is cited first."""

NEXT_LINE_BARE = f"""Inflation fell to 3.1% in 2024 [2]. The Fed held rates in December [1].

## References
1. Federal Reserve: Monetary Policy
   {FED}
2. Bureau of Labor Statistics: Consumer Price Index
   {BLS}
"""
"""A numbered list under a heading whose URLs stand alone on the next line."""

STORM = """# Inflation in 2024

## Causes
Inflation fell to 3.1% in 2024.[2][1] The Fed held rates in December.[1]
"""
"""knowledge-storm's article: bare ``[n]`` markers, the sources only in ``url_to_info.json``."""

STORM_INDEX = {FED: 1, BLS: 2}
"""The article's ``url_to_unified_index`` (URL -> marker number)."""

STORM_MAP = {str(n): url for url, n in STORM_INDEX.items()}

GPT_RESEARCHER = f"""# Inflation in 2024

Inflation fell to 3.1% in 2024 ([Bureau of Labor Statistics, 2024]({BLS})). The Fed held rates in December ([Federal Reserve, 2023]({FOMC}); [Federal Reserve, n.d.]({FED})).

## References

- Bureau of Labor Statistics. (2024). *Consumer Price Index*. BLS. [https://www.bls.gov/cpi/]({BLS})
- Federal Reserve. (2023, December 13). *FOMC statement*. {FOMC}
- Federal Reserve. (n.d.). *Monetary policy*. [federalreserve.gov]({FED})
- Unused, A. (2022). *Other*. [example.org]({OTHER})
"""
"""gpt-researcher: APA in-text citations as markdown links in parentheses, an APA reference list."""
