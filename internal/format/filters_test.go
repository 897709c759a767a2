package format

import "testing"

func TestSchemeOf(t *testing.T) {
	for url, want := range map[string]string{
		"https://a.example/live": SchemeHTTPS, "HTTPS://A.example": SchemeHTTPS, "http://a.example:8000/;": SchemeHTTP,
		"Http://a.example": SchemeHTTP, "": "", "https:/a": "", "httpx://a": "", "ftp://a": "", "https": "",
	} {
		if got := SchemeOf(url); got != want {
			t.Errorf("SchemeOf(%q) = %q, want %q", url, got, want)
		}
	}
}
