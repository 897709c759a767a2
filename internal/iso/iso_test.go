package iso

import "testing"

func TestLanguageCode(t *testing.T) {
	tests := []struct {
		label, want string
	}{
		{"de", "de"}, {"deu", "de"}, {"ger", "de"}, {"German", "de"}, {"german", "de"}, {"Deutsch", "de"},
		{"fre", "fr"}, {"fra", "fr"}, {"French", "fr"}, {"français", "fr"}, {"francais", "fr"},
		{"chi", "zh"}, {"zho", "zh"}, {"chinese", "zh"}, {"中文", "zh"},
		{"gre", "el"}, {"greek", "el"}, {"ελληνικά", "el"},
		{"iw", "he"}, {"heb", "he"}, {"hebrew", "he"},
		{"русский", "ru"}, {"язык: русский", "ru"},
		{"español mexico", "es"}, {"brazilian portuguese", "pt"}, {"american english", "en"},
		{"english/russian", "en"}, {"  Tamil ", "ta"}, {"gsw", "gsw"},
		{"yiddish", "yi"}, {"ji", "yi"}, {"yi", "yi"}, {"indonesian", "id"}, {"in", "id"},
	}
	for _, tt := range tests {
		got, ok := LanguageCode(tt.label)
		if !ok || got != tt.want {
			t.Errorf("LanguageCode(%q) = %q, %v; want %q", tt.label, got, ok, tt.want)
		}
	}
}

// TestNamesResolveToCanonicalCodes: whatever a name resolves to must be a
// fixed point of code resolution, or the indexer (which files labels under
// the resolved code) and a query naming the language would disagree.
func TestNamesResolveToCanonicalCodes(t *testing.T) {
	for name, code := range languageNames() {
		if again, ok := LanguageCode(code); !ok || again != code {
			t.Errorf("name %q -> %q, but %q -> %q (%v)", name, code, code, again, ok)
		}
	}
}

func TestLanguageCodeRejects(t *testing.T) {
	for _, label := range []string{"", "us", "x", "qqq1", "not a language at all", "80s"} {
		if got, ok := LanguageCode(label); ok {
			t.Errorf("LanguageCode(%q) = %q, want no match", label, got)
		}
	}
}

func TestNames(t *testing.T) {
	if got := LanguageName("de"); got != "German" {
		t.Errorf("LanguageName(de) = %q", got)
	}
	for cc, want := range map[string]string{"US": "United States", "gb": "United Kingdom", "DE": "Germany", "XX": "", "": "", "EU": ""} {
		if got := CountryName(cc); got != want {
			t.Errorf("CountryName(%q) = %q, want %q", cc, got, want)
		}
	}
}
