// This file implements the TLS handshake test of issue 31's recording-cost
// case (yamux's TestOpenStreamTimeout/TLS): crypto-heavy code, where nearly
// every event is a memory access of the handshake's arithmetic, so the
// run's own time shows what recording costs an event against the race
// detector's checks.

package suites

// TLSParams sizes the TLS stress test: Handshakes TLS 1.3 handshakes
// (ECDSA P-256 certificate) over net.Pipe, one after another.
type TLSParams struct {
	Handshakes int
}

// TLSTest returns the source of the TLS handshake test. It logs the mean
// handshake time, the figure a timing test like yamux's depends on.
func TLSTest(p TLSParams) string {
	return generated(tlsTest, "HANDSHAKES", max(p.Handshakes, 1))
}

const tlsTest = `import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net"
	"testing"
	"time"
)

const handshakes = HANDSHAKES

func TestTLSHandshakes(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "seerstress"},
		DNSNames:     []string{"seerstress"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(cert)
	server := &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}
	client := &tls.Config{RootCAs: roots, ServerName: "seerstress"}
	start := time.Now()
	for range handshakes {
		a, b := net.Pipe()
		s, c := tls.Server(a, server), tls.Client(b, client)
		errc := make(chan error, 1)
		go func() { errc <- s.Handshake() }()
		if err := c.Handshake(); err != nil {
			t.Fatal(err)
		}
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
		a.Close()
		b.Close()
	}
	t.Logf("%d handshakes, %v each", handshakes, time.Since(start)/handshakes)
}
`
