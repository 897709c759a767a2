package realdata

// The sample's vocabulary: made-up station names built from common words,
// countries with the upstream's labels, its codecs, languages and tags.
// None of it is a record of the snapshot.

// country is one country of the sample: its code as the upstream writes
// it, its label, its weight among the sample's stations, its states, the
// language and language codes most of its stations declare, a centre for
// coordinates and its own name words.
type country struct {
	code, label string
	weight      int
	states      []string
	language    string
	langCodes   string
	lat, lon    float64
	words       []string
}

var countries = []country{
	{"US", "The United States Of America", 64, []string{"California", "New York", "Texas", "Florida", "Ohio"}, "english", "en", 39.5, -98.35,
		[]string{"KEXP", "WNYC", "NPR", "Country", "Hits", "Rock", "New York", "Seattle", "Chicago", "America"}},
	{"DE", "Germany", 52, []string{"Berlin", "Bavaria", "Bayern", "Hessen", "Nordrhein-Westfalen"}, "german", "de", 51.1, 10.4,
		[]string{"Antenne", "Bayern", "Deutschlandfunk", "Klassik", "Berlin", "Schlager", "Welle", "Hamburg", "Oldies"}},
	{"RU", "The Russian Federation", 29, []string{"Moscow", "Москва", "Moscow (Russia)", "Saint Petersburg"}, "russian", "ru", 55.75, 37.62,
		[]string{"Радио", "Москва", "Русское", "Классик", "Шансон", "Дача", "Europa Plus", "Record"}},
	{"FR", "France", 23, []string{"Paris", "Île-de-France", "Occitanie", "Auvergne-Rhône-Alpes"}, "french", "fr", 48.85, 2.35,
		[]string{"France Inter", "Chérie", "Nostalgie", "Paris", "Jazz", "Musique", "Nova", "Sud"}},
	{"GR", "Greece", 19, []string{"Athens", "Thessaloniki", "Heraclion"}, "greek", "el", 37.98, 23.73,
		[]string{"Ράδιο", "Ελλάδα", "Ελληνικά", "Αθήνα", "Λαϊκά", "Kiss", "Athens"}},
	{"CN", "China", 19, []string{"Chekiang", "Shantung", "Kiangsu", "Peking"}, "chinese", "zh", 39.9, 116.4,
		[]string{"北京", "音乐", "广播", "中国之声", "交通", "新闻", "上海", "经济"}},
	{"GB", "The United Kingdom Of Great Britain And Northern Ireland", 18, []string{"London", "London, England", "England", "Scotland"}, "english", "en", 51.5, -0.12,
		[]string{"BBC Radio", "Capital", "Heart", "London", "Absolute", "Classic", "Smooth", "Greatest Hits"}},
	{"AU", "Australia", 17, []string{"Sydney NSW", "New South Wales", "Queensland", "Victoria"}, "english", "en", -33.87, 151.21,
		[]string{"ABC", "Triple", "Sydney", "Community", "Country", "Gold"}},
	{"MX", "Mexico", 16, []string{"Ciudad de México", "Jalisco", "Sinaloa", "Nuevo León"}, "spanish", "es", 19.43, -99.13,
		[]string{"La", "Ke Buena", "Exa", "Los 40", "Radio Fórmula", "Mexicana", "Norteño", "Estéreo"}},
	{"IT", "Italy", 15, []string{"Lombardia", "Lazio", "Veneto", "Sicilia"}, "italian", "it", 41.9, 12.5,
		[]string{"Radio Di", "Italia", "Milano", "Roma", "Anni 80", "Musica", "Classica"}},
	{"CA", "Canada", 13, []string{"Ontario", "Alberta", "Quebec", "British Columbia"}, "english", "en", 45.42, -75.7,
		[]string{"CBC", "Toronto", "Montréal", "Country", "Rock"}},
	{"IN", "India", 12, []string{"Tamil Nadu", "MAHARASHTRA", "Maharashtra", "Delhi"}, "hindi", "hi", 28.61, 77.2,
		[]string{"Mirchi", "Bollywood", "Tamil", "Akashvani", "Desi", "Bhakti"}},
	{"ES", "Spain", 12, []string{"Madrid", "Barcelona", "Andalucía", "Valencia"}, "spanish", "es", 40.42, -3.7,
		[]string{"Cadena", "Onda", "Flamenco", "Madrid", "Los 40", "Catalunya"}},
	{"PL", "Poland", 11, []string{"Krakow", "Warszawa", "Warsaw"}, "polish", "pl", 52.23, 21.01,
		[]string{"Polskie", "Eska", "Zet", "Kraków", "Disco Polo"}},
	{"BR", "Brazil", 11, []string{"São Paulo", "Rio Grande do Sul", "Minas Gerais"}, "brazilian portuguese", "", -23.55, -46.63,
		[]string{"Rádio", "Sao Paulo", "São Paulo", "Gospel", "Sertanejo", "Jovem Pan", "Mix"}},
	{"NL", "The Netherlands", 9, []string{"Noord-Holland", "Overijssel", "Amsterdam"}, "dutch", "nl", 52.37, 4.9,
		[]string{"NPO", "Amsterdam", "Arrow", "Veronica", "Sky"}},
	{"AR", "Argentina", 8, []string{"Buenos Aires", "Provincia de Buenos Aires"}, "spanish", "es", -34.6, -58.38,
		[]string{"Tango", "Buenos Aires", "Nacional", "Mitre"}},
	{"PH", "The Philippines", 7, []string{"Manila", "Cebu City"}, "filipino", "", 14.6, 120.98,
		[]string{"DZRH", "Manila", "Love Radio", "OPM"}},
	{"PT", "Portugal", 4, []string{"Lisbon", "Lisboa", "Madeira"}, "portuguese", "pt", 38.72, -9.14,
		[]string{"Rádio Comercial", "Radio Comercial", "Renascença", "Fado", "Antena"}},
	{"AT", "Austria", 4, []string{"Vienna", "Vorarlberg", "Oberösterreich"}, "german", "de", 48.21, 16.37,
		[]string{"Ö3", "O3", "Wien", "Kronehit", "FM4"}},
	{"CZ", "Czechia", 3, []string{"Prague", "Ústecký kraj"}, "czech", "cs", 50.08, 14.44,
		[]string{"Český", "Praha", "Evropa"}},
	{"FI", "Finland", 3, []string{"Helsinki", "Uusimaa"}, "finnish", "fi", 60.17, 24.94,
		[]string{"Yle", "Helsinki", "Suomi", "Rock"}},
	{"DK", "Denmark", 3, []string{"København", "Copenhagen"}, "danish", "da", 55.68, 12.57,
		[]string{"DR P1 (AAC)", "DR P2", "København", "Nova"}},
	{"JP", "Japan", 3, []string{"tokyo", "Tokyo", "埼玉県"}, "japanese", "ja", 35.68, 139.69,
		[]string{"ラジオ", "東京", "J-Pop", "Anime"}},
	{"KR", "The Republic Of Korea", 2, []string{"Seoul"}, "korean", "ko", 37.57, 126.98,
		[]string{"라디오", "서울", "K-Pop"}},
	{"IL", "Israel", 2, []string{"Tel Aviv"}, "hebrew", "he", 32.08, 34.78,
		[]string{"רדיו", "תל אביב", "Kol"}},
	{"EG", "Egypt", 2, []string{"Cairo"}, "arabic", "ar", 30.04, 31.24,
		[]string{"إذاعة", "القرآن", "القاهرة", "Nile"}},
	{"IR", "The Islamic Republic Of Iran", 2, []string{"Tehran"}, "persian", "fa", 35.69, 51.39,
		[]string{"رادیو", "تهران", "Javan"}},
	{"TH", "Thailand", 2, []string{"Bangkok"}, "thai", "th", 13.75, 100.5,
		[]string{"วิทยุ", "กรุงเทพ", "Cool"}},
	{"UA", "Ukraine", 4, []string{"Kyiv", "Kiev"}, "ukrainian", "uk", 50.45, 30.52,
		[]string{"Радіо", "Київ", "Хіт", "Ukraine"}},
	{"CH", "Switzerland", 4, []string{"Suisse Romande", "Zürich", "Bern"}, "german", "de", 47.37, 8.54,
		[]string{"SRF", "Swiss", "Zürich", "Jazz"}},
	{"TR", "Türkiye", 3, []string{"Istanbul", "Ankara"}, "turkish", "tr", 41.01, 28.98,
		[]string{"Türkü", "İstanbul", "Arabesk"}},
}

// nameWords are the words station names are made of, across countries.
var nameWords = []string{
	"Radio", "FM", "Jazz", "Rock", "Classic", "Classic Rock", "Pop", "News", "Talk", "Hits", "Dance", "Lounge",
	"Chill", "Country", "Oldies", "80s", "90s", "Music", "Live", "One", "Star", "Sun", "City", "Gold",
	"Smooth", "Metal", "Soul", "Blues", "Reggae", "Gospel", "Latino", "Tropical", "Top 40", "Eurodance",
	"Ambient", "Radio Paradise", "Deep House", "Techno", "Sport", "Kids", "Christmas", "Retro", "Disco",
	"Hip Hop", "Lofi", "Folk", "Indie", "Alternative", "Opera", "Piano", "Love", "Mix", "Max", "Power",
	"Energy", "Wave", "Nostalgia", "Radio Radio", "Stereo", "AM", "100", "101.5", "2000", "Media", "Station",
	// words a letter apart, as real names are: a typo of one is another
	"Hit", "Hot", "Life", "Rave", "Jazzy", "Rocks", "Kiss", "Classics", "Class", "Sound", "Sounds", "Beat", "Beats",
	"Best", "Top", "Pops", "Maxi", "Mixx", "Radia", "Rádio", "Roc", "Rick", "Dave", "Save", "Fun", "Fan", "Funk",
	"Punk", "Bass", "Base", "Vibe", "Vibes", "Lite", "Light", "Night", "Nite", "Bar", "Star FM", "Mega", "Meta",
}

// genreTags are the tags stations carry, with the upstream's spellings
// of one genre side by side.
var genreTags = []string{
	"pop", "music", "news", "rock", "classical", "talk", "hits", "radio", "entretenimiento", "dance",
	"estación", "oldies", "80s", "méxico", "mexico", "fm", "jazz", "pop music", "80's", "80’s", "80S",
	"top 40", "top40", "Top-40", "TOP 40", "hiphop", "hip-hop", "hip hop", "Hip Hop", "#hiphop",
	"rnb", "r'n'b", "R’n’B", "r n b", "lofi", "lo-fi", "Lo Fi", "classic rock", "Jazz", "country",
	"electronic", "chillout", "ambient", "metal", "blues", "soul", "reggae", "latin", "christian",
	"community radio", "public radio", "sports", "90s", "70s", "60s", "local news", "klassik", "schlager",
	"musica", "música", "noticias", "variety", "easy listening", "world music", "folk", "indie", "house",
	"techno", "trance", "children", "religious", "culture", "information", "adult contemporary",
	"80", "2000", "1", "💿", "🎵 music", "edm", "k-pop", "j-pop", "anime", "bollywood", "tango", "fado",
}

// codecs and their weights, as the upstream reports them.
var codecs = []struct {
	name   string
	weight int
}{{"MP3", 680}, {"AAC+", 160}, {"AAC", 115}, {"UNKNOWN", 32}, {"OGG", 10}, {"AAC,H.264", 2}, {"FLAC", 1},
	{"OPUS", 1}, {"FLV", 1}, {"AAC+,H.264", 1}}

// bitrates the bulk draws from; 0 is the upstream's unknown.
var bitrates = []int{0, 0, 0, 0, 32, 48, 64, 64, 96, 112, 128, 128, 128, 128, 160, 192, 192, 256, 320}

// rareTags make the long tail of tags: a word of the first list and one of
// the second ("deep jazz", "local gospel"), each pair on a few stations.
var rareTags = [2][]string{
	{"deep", "local", "college", "student", "vintage", "modern", "smooth", "hard", "soft", "underground", "regional",
		"traditional", "acoustic", "instrumental", "progressive", "experimental", "psychedelic", "urban", "tropical",
		"alternative", "christian", "catholic", "balkan", "celtic", "nordic", "andean", "caribbean", "african", "arabic"},
	{"jazz", "rock", "pop", "folk", "gospel", "metal", "soul", "blues", "reggae", "house", "techno", "trance",
		"punk", "country", "classical", "dance", "electronic", "hip-hop", "ambient", "disco", "funk", "talk", "news"},
}

// towns are made of three parts, one of each list: the long tail of the
// states, each on a station or a few.
var towns = [3][]string{
	{"Al", "Ber", "Cas", "Dun", "El", "Fer", "Gran", "Hol", "Is", "Kal", "Lin", "Mar", "Nor", "Os", "Pel", "Ros", "San", "Tor", "Val", "Wes"},
	{"a", "e", "i", "o", "en", "an", "or", "ing"},
	{"burg", "ton", "ville", "stad", "dorf", "polis", "ia", "field", "mouth", "heim"},
}

// moreLanguages are the long tail of languages, as the upstream writes
// them (lower case, some localised, some free text): more than a page of
// the languages directory.
var moreLanguages = []string{
	"afrikaans", "albanian", "amharic", "armenian", "assamese", "azerbaijani", "basque", "belarusian", "bengali",
	"bosnian", "breton", "bulgarian", "burmese", "catalan", "cebuano", "chechen", "corsican", "croatian", "czech",
	"danish", "dari", "dutch", "esperanto", "estonian", "faroese", "fijian", "filipino", "finnish", "frisian",
	"galician", "georgian", "gujarati", "haitian creole", "hausa", "hawaiian", "hungarian", "icelandic", "igbo",
	"indonesian", "irish", "javanese", "kannada", "kazakh", "khmer", "kinyarwanda", "kurdish", "kyrgyz", "lao",
	"latin", "latvian", "lingala", "lithuanian", "luganda", "luxembourgish", "macedonian", "malagasy", "malay",
	"malayalam", "maltese", "maori", "marathi", "mongolian", "nepali", "norwegian", "occitan", "odia", "oromo",
	"pashto", "punjabi", "quechua", "romanian", "romansh", "samoan", "sanskrit", "scottish gaelic", "serbian",
	"shona", "sindhi", "sinhala", "slovak", "slovenian", "somali", "sotho", "sundanese", "swahili", "swedish",
	"tagalog", "tajik", "tamil", "tatar", "telugu", "tibetan", "tigrinya", "tongan", "tswana", "turkmen",
	"twi", "ukrainian", "urdu", "uyghur", "uzbek", "vietnamese", "welsh", "wolof", "xhosa", "yiddish", "yoruba",
	"zulu", "bavarian", "low german", "swiss german", "plattdeutsch", "alemannic", "sardinian", "neapolitan",
	"sicilian", "venetian", "friulian", "ladino", "aragonese", "asturian", "aymara", "guarani", "nahuatl",
	"papiamento", "sranan", "creole", "patois", "kriol", "tok pisin", "bislama", "chamorro", "greenlandic",
}
