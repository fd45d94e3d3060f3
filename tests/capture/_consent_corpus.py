"""A corpus written for the consent-wall check: consent walls in the shapes real sites serve (IAB TCF
"We and our 842 partners", a Google-style "Before you continue", a news site's "cookie wall" with a paywall
choice, a German-English CMP, a CCPA notice, a markdown reader's rendering, HTML with the banner and a
<noscript> line), and ordinary pages, several of which talk about cookies, consent or privacy (an article on
cookie law, a baking recipe, a privacy-policy page, a news article with a one-line cookie footer, a product
page, a short news brief). Each is long enough (over 200 characters) to pass the size rule."""

from __future__ import annotations

WALLS: dict[str, str] = {
    "tcf_partners": (
        "We value your privacy\n\nWe and our 842 partners store and/or access information on a device, such as "
        "cookies, and process personal data, such as unique identifiers and standard information sent by a "
        "device for personalised advertising and content, advertising and content measurement, audience "
        "research and services development. With your permission we and our partners may use precise "
        "geolocation data and identification through device scanning. You may click to consent to our and our "
        "842 partners' processing as described above. Alternatively you may access more detailed information "
        "and change your preferences before consenting or to refuse consenting. Please note that some "
        "processing of your personal data may not require your consent, but you have a right to object to "
        "such processing. Your preferences will apply to this website only. You can change your preferences "
        "or withdraw your consent at any time by returning to this site and clicking the \"Privacy\" button at "
        "the bottom of the webpage.\n\nMORE OPTIONS\nDISAGREE\nAGREE"
    ),
    "before_you_continue": (
        "Before you continue to Search\n\nWe use cookies and data to deliver and maintain services, like "
        "tracking outages and protecting against spam, fraud and abuse, and to measure audience engagement and "
        "site statistics to understand how our services are used and enhance the quality of those services. "
        "If you choose to 'Accept all', we will also use cookies and data to develop and improve new services, "
        "deliver and measure the effectiveness of ads, and show personalised content and ads depending on your "
        "settings. If you choose to 'Reject all', we will not use cookies for these additional purposes.\n\n"
        "Reject all\nAccept all\nMore options\nPrivacy · Terms"
    ),
    "news_pur": (
        "<!doctype html><html><head><title>Consent</title><style>.b{color:red}</style></head><body>"
        "<div class='cmp'><h2>Welcome to The Daily Ledger</h2><p>To read our journalism for free, please accept "
        "cookies and tracking for advertising. We and our partners use cookies to show you personalised ads "
        "and to measure how our pages are used.</p><p>Or subscribe to our ad-free PUR plan for 2.99 a month: "
        "no tracking cookies, no personalised advertising.</p><button>Accept and continue</button>"
        "<button>Subscribe to PUR</button><a href='/privacy'>Privacy policy</a> "
        "<a href='/cookies'>Cookie settings</a></div><script>window.__cmp=1</script></body></html>"
    ),
    "cmp_settings": (
        "Cookie settings\n\nThis website uses cookies. We use cookies to personalise content and ads, to "
        "provide social media features and to analyse our traffic. We also share information about your use of "
        "our site with our social media, advertising and analytics partners who may combine it with other "
        "information that you've provided to them or that they've collected from your use of their services.\n"
        "Necessary\nPreferences\nStatistics\nMarketing\nShow details\nAllow selection\nAllow all cookies\n"
        "Use necessary cookies only"
    ),
    "ccpa": (
        "Your Privacy Choices\n\nWe and our advertising partners use cookies and similar tracking technologies "
        "to collect information about your browsing on this site. Under the California Consumer Privacy Act you "
        "have the right to opt out of the sale or sharing of your personal information. To opt out, toggle the "
        "switch below and click Confirm My Choices. Do Not Sell or Share My Personal Information. "
        "Confirm My Choices. Allow All."
    ),
    "markdown_reader": (
        "Title: Consent\n\nURL Source: https://news.example/article/42\n\nMarkdown Content:\n"
        "## We care about your privacy\n\nWe and our [partners](https://news.example/vendors) use cookies and "
        "similar technologies to store and access information on your device, for ad personalisation and "
        "measurement, content personalisation and audience insights. Click **Accept** to agree, or "
        "**Manage preferences** to choose which purposes you allow. You can withdraw your consent at any time "
        "in our [cookie policy](https://news.example/cookies).\n\n[Accept](#) [Manage preferences](#)"
    ),
    "bilingual": (
        "Datenschutz-Einstellungen / Privacy settings\n\nWir verwenden Cookies und ähnliche Technologien, um "
        "Inhalte und Anzeigen zu personalisieren. We use cookies and similar technologies to personalise "
        "content and ads and to analyse our traffic. By clicking \"Accept all\" you consent to the use of "
        "cookies by us and our 214 partners. Alle akzeptieren / Accept all. Einstellungen / Settings. "
        "Ablehnen / Reject."
    ),
    "html_noscript": (
        "<html><body><div id='consent'><p>We use cookies to improve your experience on our site and to show "
        "you relevant advertising. By continuing to browse you agree to our use of cookies. Find out more in "
        "our <a href='/cookie-policy'>cookie policy</a> and our <a href='/privacy'>privacy notice</a>.</p>"
        "<button>Accept cookies</button> <button>Manage cookie preferences</button></div>"
        "<noscript>Please enable JavaScript to view this page.</noscript></body></html>"
    ),
}

ARTICLES: dict[str, str] = {
    "cookie_law": (
        "EU regulators fine publishers over cookie banners\n\nThe European Data Protection Board said on "
        "Tuesday that 14 publishers had failed to offer a reject button as prominent as the accept button on "
        "their cookie banners, a practice the French regulator CNIL has fined since 2021. Under the ePrivacy "
        "directive, websites must obtain consent before setting non-essential cookies. Google was fined "
        "150 million euros in 2022 for making cookies harder to refuse than to accept. Consumer groups say "
        "consent fatigue leads most users to click accept. The board expects the new guidelines to be adopted "
        "by national regulators within 18 months, and said enforcement would focus on large news sites first."
    ),
    "recipe": (
        "Brown butter chocolate chip cookies\n\nThese cookies take 25 minutes and make 24 cookies. Brown 170 g "
        "of butter in a pan until it smells nutty, then let it cool for ten minutes. Whisk in 200 g of brown "
        "sugar, 50 g of white sugar, one egg and one yolk. Fold in 280 g of flour, a teaspoon of baking soda "
        "and a pinch of salt, then 200 g of chopped dark chocolate. Chill the dough for an hour so the cookies "
        "do not spread, scoop 24 balls and bake at 180 °C for 11 minutes. The cookies keep for five days in a "
        "tin."
    ),
    "privacy_policy": (
        "Privacy policy of Nordland Statistics\n\n1. Who we are. Nordland Statistics is the national statistics "
        "office, Storgata 1, Bodø. 2. What we collect. When you answer a survey we collect the answers, your "
        "municipality and your age group. We do not sell personal data. 3. Cookies. Our website sets one "
        "session cookie to keep you signed in to the survey portal and no advertising cookies. 4. How long we "
        "keep data. Survey answers are kept for 10 years and then anonymised. 5. Your rights. You can ask for "
        "a copy of your data, ask us to correct it, or complain to the data protection authority. Contact: "
        "privacy@stats.example."
    ),
    "article_with_footer": (
        "<html><body><article><h1>Offshore wind reaches 4.2 GW</h1><p>Offshore wind capacity reached 4.2 "
        "gigawatts in 2024, the energy ministry said on Tuesday, after three new farms in the North Sea were "
        "connected to the grid in the autumn. Auctions for another 6 GW are planned for the spring of 2025, "
        "and the ministry expects the first of them to deliver power by 2029.</p><p>Onshore capacity stayed "
        "at 11 GW.</p></article><footer><p>We use cookies to improve your experience. "
        "<a href='/cookies'>Cookie settings</a></p></footer></body></html>"
    ),
    "product": (
        "Acme ThinkBook 14, 16 GB, 512 GB SSD\n\nPrice: 899 euros. In stock, ships in 2 days. The ThinkBook 14 "
        "has a 14-inch 2.2K display, an 8-core processor, 16 GB of memory and a 512 GB SSD. Battery life is "
        "rated at 12 hours. Weight: 1.4 kg. Ports: two USB-C, one USB-A, HDMI 2.0 and a headphone jack. "
        "Warranty: 2 years. Customer reviews: 4.4 out of 5 from 312 reviews. Free returns within 30 days."
    ),
    "brief_on_tracking": (
        "Browser makers agree on third-party cookie timeline\n\nThe three largest browser makers said they "
        "would block third-party cookies by default from 2026, ending a tracking technique advertisers have "
        "used since the 1990s. Advertising groups warned that publishers could lose up to 30 % of their "
        "revenue."
    ),
    # the hard ones: first and second person about consent, but not a wall
    "cmp_vendor": (
        "Consent management made simple\n\nOur consent management platform helps you collect and store consent "
        "for cookies across all your websites. We support the IAB TCF 2.2 and Google Consent Mode v2. Our "
        "customers include 3,000 publishers in 40 countries. Pricing starts at 9 euros a month for one domain, "
        "with a free plan for sites under 5,000 visitors. Book a demo or start your 14-day trial today."
    ),
    "help_center": (
        "How do I change my cookie preferences?\n\nYou can change your cookie preferences at any time. Click "
        "Cookie settings at the bottom of any page, switch off the categories you do not want, and click Save. "
        "Your choice is stored in a cookie for 12 months. If you clear your browser's cookies, we will ask you "
        "again on your next visit."
    ),
    "quoted_statement": (
        "Retailer fined over tracking\n\nThe retailer said in a statement: \"We take your privacy seriously and "
        "our partners only use cookies with your consent.\" The regulator disagreed and fined it 2 million "
        "euros on Monday, saying the company had set advertising cookies before users could accept or reject "
        "them. The retailer has 30 days to appeal."
    ),
}
