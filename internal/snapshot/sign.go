package snapshot

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"aead.dev/minisign"
)

// PasswordEnv names the environment variable holding the password of an
// encrypted minisign secret key. A key made with `minisign -G -W` has
// none.
const PasswordEnv = "STATIONDEX_KEY_PASSWORD"

// ErrSignature: the manifest's signature is missing, malformed, made by
// another key or does not match the manifest.
var ErrSignature = errors.New("manifest signature refused")

// ErrMismatch: the signature is by the right key but of other bytes, as
// when a manifest and its signature were read either side of a publish.
var ErrMismatch = errors.New("the signature does not match the manifest")

// ReadSecretKey reads a minisign secret key file (as `minisign -G` writes
// it), decrypting it with the password in $STATIONDEX_KEY_PASSWORD when it
// is encrypted.
func ReadSecretKey(path string) (minisign.PrivateKey, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return minisign.PrivateKey{}, fmt.Errorf("secret key: %w", err)
	}
	var key minisign.PrivateKey
	if minisign.IsEncrypted(b) {
		key, err = minisign.DecryptKey(os.Getenv(PasswordEnv), b)
		if err != nil {
			err = fmt.Errorf("%w (the key is encrypted: put its password in $%s, or make one without with minisign -G -W)", err, PasswordEnv)
		}
	} else {
		err = key.UnmarshalText(untrusted(b))
	}
	if err != nil {
		return minisign.PrivateKey{}, fmt.Errorf("secret key %s: %w", path, err)
	}
	return key, nil
}

// ReadPublicKey reads a minisign public key: the file `minisign -G` writes
// (minisign.pub), or the key itself as its one base64 line (RW...).
func ReadPublicKey(pathOrKey string) (minisign.PublicKey, error) {
	var key minisign.PublicKey
	b, err := os.ReadFile(pathOrKey)
	if errors.Is(err, os.ErrNotExist) && strings.HasPrefix(pathOrKey, "RW") {
		if err := key.UnmarshalText([]byte(pathOrKey)); err != nil {
			return key, fmt.Errorf("public key %q: neither a file nor a key: %w", pathOrKey, err)
		}
		return key, nil
	}
	if err != nil {
		return key, fmt.Errorf("public key: %w", err)
	}
	if err := key.UnmarshalText(untrusted(b)); err != nil {
		return key, fmt.Errorf("public key %s: %w", pathOrKey, err)
	}
	return key, nil
}

// untrusted drops the "untrusted comment:" line minisign puts before a
// key, and surrounding white space.
func untrusted(b []byte) []byte {
	s := strings.TrimSpace(string(b))
	if first, rest, ok := strings.Cut(s, "\n"); ok && strings.HasPrefix(first, "untrusted comment:") {
		s = strings.TrimSpace(rest)
	}
	return []byte(s)
}

// Sign returns the minisign signature of a manifest's bytes, as the
// minisign tool would write it to latest.json.minisig; its trusted
// comment names the file and the time of signing.
func Sign(key minisign.PrivateKey, manifest []byte, now time.Time) []byte {
	trusted := "timestamp:" + strconv.FormatInt(now.Unix(), 10) + "\tfile:" + ManifestName
	untrustedComment := "signature from stationdex publish, key " + strings.ToUpper(strconv.FormatUint(key.ID(), 16))
	return minisign.SignWithComments(key, manifest, trusted, untrustedComment)
}

// Verify checks sig (the contents of latest.json.minisig, from minisign or
// Sign) over manifest with key; the error says why it is refused.
func Verify(key minisign.PublicKey, manifest, sig []byte) error {
	var s minisign.Signature
	if err := s.UnmarshalText(sig); err != nil {
		return fmt.Errorf("%w: malformed: %v", ErrSignature, err)
	}
	if s.KeyID != key.ID() {
		return fmt.Errorf("%w: signed by key %X, want %X", ErrSignature, s.KeyID, key.ID())
	}
	if !minisign.Verify(key, manifest, sig) {
		return fmt.Errorf("%w: %w", ErrSignature, ErrMismatch)
	}
	return nil
}
