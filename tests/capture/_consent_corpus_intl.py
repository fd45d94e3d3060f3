"""More of the consent-wall corpus, written for this check: walls in German, French, Spanish, Italian and Dutch
(the shapes European consent platforms serve: a first layer with its buttons, one as HTML, one as a markdown
reader's rendering), walls over 6,000 visible characters (a consent layer with every purpose spelled out, and
one in capitals), and ordinary pages in the same languages that talk about cookies, consent or privacy (a
cookie recipe, a news article on a consent ruling, a privacy policy, an article with a cookie footer, a long
article that quotes a banner). Each is over 200 characters, so the size rule alone would call it ``ok``."""

from __future__ import annotations

_PURPOSES_EN = [
    ("Store and/or access information on a device",
     "Cookies, device or similar online identifiers (for example login-based identifiers, randomly assigned "
     "identifiers, network based identifiers) together with other information (for example browser type, "
     "language, screen size, supported technologies) can be stored or read on your device to recognise it each "
     "time it connects to an app or to a website, for one or several of the purposes presented here."),
    ("Use limited data to select advertising",
     "Advertising presented to you on this service can be based on limited data, such as the website or app "
     "you are using, your non-precise location, your device type or which content you are interacting with "
     "(for example, to limit the number of times an ad is presented to you)."),
    ("Create profiles for personalised advertising",
     "Information about your activity on this service (such as forms you submit, content you look at) can be "
     "stored and combined with other information about you (for example, information from your previous "
     "activity on this service and other websites or apps) or similar users. This is then used to build or "
     "improve a profile about you (that might include possible interests and personal aspects)."),
    ("Use profiles to select personalised advertising",
     "Advertising presented to you on this service can be based on your advertising profiles, which can "
     "reflect your activity on this service or other websites or apps (like the forms you submit, content you "
     "look at), possible interests and personal aspects."),
    ("Create profiles to personalise content",
     "Information about your activity on this service (for instance, forms you submit, non-advertising content "
     "you look at) can be stored and combined with other information about you (such as your previous activity "
     "on this service or other websites or apps) or similar users. This is then used to build or improve a "
     "profile about you (which might for example include possible interests and personal aspects)."),
    ("Use profiles to select personalised content",
     "Content presented to you on this service can be based on your content personalisation profiles, which "
     "can reflect your activity on this or other services (for instance, the forms you submit, content you "
     "look at), possible interests and personal aspects."),
    ("Measure advertising performance",
     "Information regarding which advertising is presented to you and how you interact with it can be used to "
     "determine how well an advert has worked for you or other users and whether the goals of the advertising "
     "were reached."),
    ("Measure content performance",
     "Information regarding which content is presented to you and how you interact with it can be used to "
     "determine whether the non-advertising content reached its intended audience and matched your interests."),
    ("Understand audiences through statistics or combinations of data from different sources",
     "Reports can be generated based on the combination of data sets (like user profiles, statistics, market "
     "research, analytics data) regarding your interactions and those of other users with advertising or "
     "non-advertising content to identify common characteristics."),
    ("Develop and improve services",
     "Information about your activity on this service, such as your interaction with ads or content, can be "
     "very helpful to improve products and services and to build new products and services based on user "
     "interactions, the type of audience, etc."),
    ("Use limited data to select content",
     "Content presented to you on this service can be based on limited data, such as the website or app you "
     "are using, your non-precise location, your device type, or which content you are interacting with."),
    ("Ensure security, prevent and detect fraud, and fix errors",
     "Your data can be used to monitor for and prevent unusual and possibly fraudulent activity (for example "
     "regarding advertising, ad clicks by bots), and ensure systems and processes work properly and securely. "
     "It can also be used to correct any problems you, the publisher or the advertiser may encounter."),
    ("Deliver and present advertising and content",
     "Certain information (like an IP address or device capabilities) is used to ensure the technical "
     "compatibility of the content or advertising, and to facilitate the transmission of the content or ad to "
     "your device."),
    ("Save and communicate privacy choices",
     "The choices you make regarding the purposes and entities listed in this notice are saved and made "
     "available to those entities in the form of digital signals (such as a string of characters). This is "
     "necessary in order to enable both this service and those entities to respect such choices."),
    ("Match and combine data from other data sources",
     "Information about your activity on this service may be matched and combined with other information "
     "relating to you and originating from various sources (for instance your activity on a separate online "
     "service, your use of a loyalty card in-store, or your answers to a survey), in support of the purposes "
     "explained in this notice."),
    ("Link different devices",
     "In support of the purposes explained in this notice, your device might be considered as likely linked to "
     "other devices that belong to you or your household (for instance because you are logged in to the same "
     "service on both your phone and your computer, or because you may use the same Internet connection on "
     "both devices)."),
    ("Identify devices based on information transmitted automatically",
     "Your device might be distinguished from other devices based on information it automatically sends when "
     "accessing the Internet (for instance, the IP address of your Internet connection or the type of browser "
     "you are using) in support of the purposes exposed in this notice."),
    ("Use precise geolocation data",
     "With your acceptance, your precise location (within a radius of less than 500 metres) may be used in "
     "support of the purposes explained in this notice."),
]


def _long_layer() -> str:
    head = ("Manage your privacy choices\n\nWe and our 1,412 partners use cookies and similar technologies to store "
            "and access information on your device and to process your personal data for the purposes below. "
            "You can accept all of them, reject all of them, or choose for each purpose and each partner. Your "
            "choices apply to this site only, and you can change them at any time from the Privacy settings "
            "link at the bottom of every page.\n\n")
    body = "\n\n".join(f"{title}\n{text}\nConsent\nLegitimate interest\nObject" for title, text in _PURPOSES_EN)
    return head + body + "\n\nReject all\nSave my choices\nAccept all"


WALLS: dict[str, str] = {
    "de_erste_ebene": (
        "Wir respektieren Ihre Privatsphäre\n\nWir und unsere 214 Partner speichern und/oder greifen auf "
        "Informationen auf Ihrem Gerät zu, zum Beispiel Cookies, und verarbeiten personenbezogene Daten wie "
        "eindeutige Kennungen für personalisierte Anzeigen und Inhalte, Anzeigen- und Inhaltsmessung sowie zur "
        "Entwicklung und Verbesserung von Angeboten. Mit Ihrer Zustimmung dürfen wir und unsere Partner genaue "
        "Standortdaten nutzen. Sie können Ihre Einwilligung jederzeit über den Link Datenschutz-Einstellungen "
        "am Seitenende widerrufen. Klicken Sie auf Alle akzeptieren, um zuzustimmen, oder passen Sie Ihre "
        "Auswahl an.\n\nAlle akzeptieren\nAlle ablehnen\nEinstellungen verwalten"
    ),
    "de_html": (
        "<!DOCTYPE html><html lang='de'><head><title>Zustimmung</title><script>var c=1</script></head><body>"
        "<div id='cmp'><h2>Diese Website verwendet Cookies</h2><p>Wir verwenden Cookies und ähnliche "
        "Technologien, um Ihnen ein optimales Nutzungserlebnis zu bieten, unsere Inhalte zu personalisieren und "
        "die Zugriffe auf unsere Website zu analysieren. Dabei werden auch Daten an unsere Partner für "
        "Werbung und Analyse weitergegeben. Mit einem Klick auf „Zustimmen und weiter“ willigen Sie in die "
        "Verarbeitung ein; Ihre Einwilligung können Sie jederzeit widerrufen.</p><button>Zustimmen und "
        "weiter</button><button>Nur notwendige Cookies</button><a href='/datenschutz'>Datenschutzerklärung</a>"
        "</div></body></html>"
    ),
    "fr_premiere_couche": (
        "Nous respectons votre vie privée\n\nNous et nos 846 partenaires stockons et/ou accédons à des "
        "informations sur votre appareil, telles que les cookies, et traitons des données personnelles, telles "
        "que des identifiants uniques, pour la publicité et le contenu personnalisés, la mesure de la publicité "
        "et du contenu, et le développement de nos services. Avec votre consentement, nous et nos partenaires "
        "pouvons utiliser des données de géolocalisation précises. Vous pouvez accepter ou refuser ces "
        "traitements, ou gérer vos préférences, et retirer votre consentement à tout moment depuis la page "
        "Confidentialité.\n\nTout accepter\nTout refuser\nParamétrer mes choix"
    ),
    "fr_continuer_sans_accepter": (
        "<html><body><div class='didomi'><p>Continuer sans accepter →</p><h1>Bienvenue sur Le Quotidien</h1>"
        "<p>Nous et nos partenaires utilisons des cookies et des traceurs pour mesurer l'audience de notre "
        "site, vous proposer des publicités personnalisées et des contenus adaptés à vos centres d'intérêt, et "
        "partager des données avec les réseaux sociaux. En cliquant sur « Accepter », vous consentez à ces "
        "traitements ; vous pouvez modifier vos choix à tout moment dans la page Gestion des cookies.</p>"
        "<button>Accepter</button><button>Personnaliser</button><button>En savoir plus</button></div>"
        "</body></html>"
    ),
    "es_primera_capa": (
        "Valoramos tu privacidad\n\nNosotros y nuestros 731 socios almacenamos o accedemos a información en tu "
        "dispositivo, como cookies, y tratamos datos personales, como identificadores únicos, para ofrecerte "
        "publicidad y contenido personalizados, medir la publicidad y el contenido, y desarrollar nuestros "
        "servicios. Con tu consentimiento, nosotros y nuestros socios podemos usar datos de geolocalización "
        "precisa. Puedes aceptar o rechazar el uso de cookies, o configurar tus preferencias, y retirar tu "
        "consentimiento en cualquier momento desde el enlace Privacidad.\n\nAceptar todo\nRechazar todo\n"
        "Configurar"
    ),
    "es_markdown": (
        "## Este sitio web utiliza cookies\n\nUtilizamos cookies propias y de terceros para analizar nuestros "
        "servicios y mostrarle publicidad relacionada con sus preferencias en base a un perfil elaborado a partir "
        "de sus hábitos de navegación. Puede obtener más información en nuestra [Política de "
        "cookies](https://periodico.example/cookies). Si acepta, consiente el uso de todas las cookies; puede "
        "rechazarlas o configurar su uso.\n\n[Aceptar y continuar](#)  [Rechazar](#)  [Configurar cookies](#)"
    ),
    "it_prima_schermata": (
        "La tua privacy è importante per noi\n\nNoi e i nostri 655 fornitori archiviamo e/o accediamo a "
        "informazioni su un dispositivo, come i cookie, e trattiamo dati personali, come identificatori univoci, "
        "per annunci e contenuti personalizzati, valutazione degli annunci e del contenuto e sviluppo dei "
        "servizi. Con il tuo consenso, noi e i nostri fornitori possiamo utilizzare dati di geolocalizzazione "
        "precisi. Puoi accettare o rifiutare, oppure gestire le tue preferenze, e revocare il consenso in "
        "qualsiasi momento dalla pagina Privacy.\n\nAccetta tutto\nRifiuta tutto\nGestisci le preferenze"
    ),
    "it_html": (
        "<html><body><div class='iubenda-cs'><p>Informativa</p><p>Noi e terze parti selezionate utilizziamo "
        "cookie o tecnologie simili per finalità tecniche e, con il tuo consenso, anche per altre finalità "
        "(misurazione e pubblicità personalizzata) come specificato nella cookie policy. Il rifiuto del consenso "
        "può rendere non disponibili le relative funzioni. Puoi liberamente prestare, rifiutare o revocare il "
        "tuo consenso, in qualsiasi momento. Usa il pulsante «Accetta» per acconsentire.</p><button>Rifiuta"
        "</button><button>Accetta</button><button>Scopri di più e personalizza</button></div></body></html>"
    ),
    "nl_eerste_laag": (
        "Wij waarderen je privacy\n\nWij en onze 402 partners slaan informatie op een apparaat op en/of openen "
        "deze, zoals cookies, en verwerken persoonsgegevens, zoals unieke identificatoren, voor gepersonaliseerde "
        "advertenties en content, advertentie- en contentmeting en het ontwikkelen van diensten. Met jouw "
        "toestemming mogen wij en onze partners precieze geolocatiegegevens gebruiken. Je kunt akkoord gaan of "
        "weigeren, of je voorkeuren beheren, en je toestemming op elk moment intrekken via de link Privacy "
        "onderaan de pagina.\n\nAlles accepteren\nAlles weigeren\nInstellingen beheren"
    ),
    "nl_cookiemuur": (
        "<html><body><div class='cookiewall'><h2>Toestemming voor cookies</h2><p>Om onze artikelen gratis te "
        "kunnen lezen, vragen wij u toestemming voor het plaatsen van cookies door ons en onze partners. Wij "
        "gebruiken cookies om advertenties te tonen die aansluiten bij uw interesses en om het gebruik van onze "
        "site te meten. Klik op Akkoord om door te gaan, of neem een abonnement zonder advertenties.</p>"
        "<button>Akkoord</button><button>Abonneren</button><a href='/privacy'>Privacyverklaring</a></div>"
        "</body></html>"
    ),
    "en_long_layer": _long_layer(),
    "en_long_layer_capitals": _long_layer().upper(),
    "de_long_layer_html": (
        "<html><body><div id='consent'>"
        + "".join(f"<h3>{t}</h3><p>{d}</p><button>Einwilligen</button>" for t, d in [
            ("Speichern von oder Zugriff auf Informationen auf einem Endgerät",
             "Cookies, Gerätekennungen oder andere Informationen können auf Ihrem Gerät gespeichert oder "
             "abgerufen werden, damit wir und unsere Partner es bei jedem Besuch wiedererkennen können."),
            ("Personalisierte Werbung",
             "Wir und unsere Partner nutzen Ihre Daten, um ein Profil Ihrer Interessen zu erstellen und Ihnen "
             "personalisierte Werbung anzuzeigen, mit Ihrer Einwilligung auch auf anderen Websites."),
            ("Messung",
             "Wir messen mit Cookies, wie Sie unsere Inhalte und die Werbung unserer Partner nutzen, und "
             "erstellen daraus Statistiken über die Nutzung unserer Angebote."),
        ] * 14)
        + "<p>Mit Klick auf „Alle akzeptieren“ stimmen Sie allen Zwecken zu. Ihre Einwilligung können Sie jederzeit "
        "in den Datenschutz-Einstellungen widerrufen.</p><button>Alle akzeptieren</button>"
        "<button>Auswahl speichern</button></div></body></html>"
    ),
}

_RECIPE_DE = (
    "Schwarz-Weiß-Cookies\n\nFür 24 Cookies 250 g weiche Butter mit 150 g Zucker und einer Prise Salz cremig "
    "rühren. Ein Ei unterrühren, dann 350 g Mehl und einen Teelöffel Backpulver einarbeiten. Den Teig halbieren "
    "und unter eine Hälfte zwei Esslöffel Kakao kneten. Beide Teige zu Rollen formen, eine Stunde kühlen, in "
    "Scheiben schneiden und bei 180 Grad zwölf Minuten backen. Die Cookies auf dem Blech abkühlen lassen; in "
    "einer Dose bleiben sie eine Woche frisch."
)

ARTICLES: dict[str, str] = {
    "de_rezept": _RECIPE_DE,
    "de_urteil": (
        "Gericht kippt Cookie-Banner ohne Ablehnen-Knopf\n\nDas Landgericht München hat am Dienstag entschieden, "
        "dass ein Nachrichtenportal seinen Lesern die Ablehnung von Cookies ebenso leicht machen muss wie die "
        "Zustimmung. Geklagt hatte ein Verbraucherverband, der in dem bisherigen Banner einen Verstoß gegen die "
        "Datenschutz-Grundverordnung sah. Die Richter folgten der Argumentation: Eine Einwilligung sei nur "
        "wirksam, wenn sie freiwillig erteilt werde. Der Verlag kündigte an, in Berufung zu gehen. Fachleute "
        "erwarten, dass weitere Portale ihre Einwilligungsdialoge nun überarbeiten. Bereits im vergangenen "
        "Jahr hatten die Datenschutzbehörden der Länder eine Orientierungshilfe veröffentlicht, die ähnliche "
        "Anforderungen formuliert."
    ),
    "fr_politique": (
        "Politique de confidentialité\n\n1. Responsable du traitement. La société Exemple SAS, 12 rue des Lilas, "
        "75011 Paris, est responsable du traitement de vos données personnelles.\n2. Données collectées. Nous "
        "collectons votre nom, votre adresse électronique et l'historique de vos commandes lorsque vous créez un "
        "compte.\n3. Finalités. Ces données servent à exécuter vos commandes, à gérer la relation client et, avec "
        "votre consentement, à vous envoyer notre lettre d'information.\n4. Durée de conservation. Les données "
        "sont conservées trois ans après le dernier achat.\n5. Vos droits. Vous disposez d'un droit d'accès, de "
        "rectification et d'effacement, que vous pouvez exercer en écrivant à dpo@exemple.example. Vous pouvez "
        "aussi introduire une réclamation auprès de la CNIL.\n6. Cookies. Notre site utilise des cookies de "
        "mesure d'audience ; la page Gestion des cookies décrit chacun d'eux.\nDernière mise à jour : 3 mars 2026."
    ),
    "fr_article_pied": (
        "<html><body><article><h1>La production solaire a progressé de 24 % en 2025</h1><p>Selon le dernier "
        "bilan du gestionnaire de réseau, la production d'électricité d'origine solaire a atteint un niveau "
        "record l'an dernier, portée par la mise en service de nouvelles centrales au sol dans le Sud-Ouest et "
        "par l'essor des installations en toiture. La part du solaire dans la consommation nationale dépasse "
        "désormais 7 %. Les professionnels du secteur s'inquiètent toutefois du ralentissement des raccordements "
        "et demandent une simplification des procédures.</p></article><footer><p>Nous utilisons des cookies "
        "pour mesurer l'audience. <a href='/cookies'>Accepter</a></p></footer></body></html>"
    ),
    "es_receta": (
        "Galletas de avena y chocolate\n\nPrecalienta el horno a 180 grados. Mezcla 120 g de mantequilla con 100 g "
        "de azúcar moreno hasta obtener una crema. Añade un huevo y una cucharadita de vainilla. Incorpora 150 g de "
        "harina, 100 g de copos de avena, media cucharadita de bicarbonato y una pizca de sal. Agrega 100 g de "
        "chocolate troceado. Forma bolitas, aplánalas ligeramente y hornea doce minutos. Estas cookies se "
        "conservan una semana en un bote hermético."
    ),
    "es_noticia": (
        "La agencia de protección de datos multa a una aerolínea por sus cookies\n\nLa Agencia Española de "
        "Protección de Datos ha impuesto una sanción de 30.000 euros a una aerolínea por instalar cookies de "
        "publicidad antes de obtener el consentimiento de los usuarios. Según la resolución, el banner de la "
        "web no ofrecía la opción de rechazar en la primera capa. La compañía ha modificado su sitio y estudia "
        "recurrir la multa. Los expertos recuerdan que la guía de la agencia exige que rechazar sea tan sencillo "
        "como aceptar."
    ),
    "it_articolo": (
        "Il Garante della privacy e i cookie wall\n\nSecondo le linee guida pubblicate dal Garante per la "
        "protezione dei dati personali, il cosiddetto cookie wall, cioè il meccanismo che obbliga l'utente ad "
        "accettare i cookie per accedere ai contenuti, è in linea di principio illecito. Il consenso deve essere "
        "libero, specifico e informato. Alcuni editori hanno introdotto un modello alternativo, chiamato pay or "
        "ok, che offre un abbonamento senza pubblicità a chi non vuole essere tracciato. Le associazioni dei "
        "consumatori hanno chiesto un chiarimento all'autorità."
    ),
    "nl_recept": (
        "Chocolate chip cookies\n\nVerwarm de oven voor op 175 graden. Klop 115 gram zachte boter met 100 gram "
        "bruine suiker romig. Voeg een ei en een theelepel vanille-extract toe. Zeef 200 gram bloem met een halve "
        "theelepel bakpoeder en een snuf zout erboven en meng kort. Schep 150 gram grof gehakte pure chocolade "
        "erdoor. Leg lepels deeg op een bakplaat en bak de cookies in twaalf minuten goudbruin."
    ),
    "nl_privacy_help": (
        "Hoe wijzig ik mijn cookie-instellingen?\n\nOp elke pagina van onze site staat onderaan de link Privacy "
        "en cookies. Daar ziet u welke categorieën cookies wij gebruiken: functionele, analytische en "
        "advertentiecookies. Per categorie kunt u met een schakelaar aangeven of u ze wilt toestaan. Uw keuze "
        "wordt twaalf maanden bewaard. Wist u uw browsergegevens, dan vragen wij opnieuw om uw keuze. Lukt het "
        "niet, neem dan contact op met onze klantenservice via het contactformulier."
    ),
    "en_long_article_quoting_a_banner": (
        "How consent banners took over the web\n\n"
        + ("Regulators in Europe have spent years arguing about the pop-ups that greet visitors of news sites. "
           "Researchers who studied ten thousand sites found that most banners nudge visitors towards accepting, "
           "with a bright button for one choice and a grey link for the other. ") * 12
        + "A typical first layer reads: \"We and our partners use cookies to personalise ads. Accept all?\" "
        + ("The industry answers that advertising pays for free journalism, and that the transparency and "
           "consent framework gives readers a standard way to choose. Critics reply that few readers open the "
           "second layer, where the purposes are spelled out one by one. ") * 14
    ),
    "en_long_privacy_policy": (
        "Privacy policy\n\n"
        + " ".join(f"{n}. {t}" for n, t in enumerate([
            "This policy explains how Example Ltd processes personal data when you use our website and apps.",
            "We collect the information you give us when you register, such as your name and email address.",
            "We process your personal data to provide the service, to answer your questions and to meet legal duties.",
            "Where we rely on your consent, you can withdraw it at any time in your account settings.",
            "We keep account data for as long as your account is open and for two years after it is closed.",
            "Payment data is handled by our payment provider, which acts as an independent controller.",
            "We use cookies that are needed for the site to work, and, if you agree, cookies for statistics.",
            "You have the right to access, correct and delete your data and to object to its processing.",
            "You can complain to the Information Commissioner's Office if you think we handle your data badly.",
            "Our data protection officer can be reached at privacy@example.example or by post at our address.",
            "We transfer data outside the UK only under standard contractual clauses approved by the regulator.",
            "We review this policy every year; the date of the last change is shown at the top of the page.",
        ] * 6, start=1))
    ),
}
