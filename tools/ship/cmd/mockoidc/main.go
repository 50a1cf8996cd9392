// Command mockoidc serves github.com/oauth2-proxy/mockoidc (the OIDC provider oauth2-proxy's own
// tests use) on a fixed address with a fixed client, for the login tests of daemonscope's chart:
// oauth2-proxy in front of the dashboard signs users in against it.
//
//	mockoidc --listen 127.0.0.1:PORT --client-id ID --client-secret SECRET
//
// The authorization endpoint signs in, without a form, the next user queued, else mockoidc's
// default user (jane.doe@example.com, groups engineering and design). A test queues a user with
//
//	POST /test/queue-user?email=E&groups=G1,G2
//
// (this main's only addition), then follows the login redirect in a browser.
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/oauth2-proxy/mockoidc"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "address to serve on")
	clientID := flag.String("client-id", "daemonscope", "the OAuth client id oauth2-proxy sends")
	clientSecret := flag.String("client-secret", "daemonscope-secret", "the client secret")
	flag.Parse()

	m, err := mockoidc.NewServer(nil)
	if err != nil {
		log.Fatal(err)
	}
	m.ClientID = *clientID
	m.ClientSecret = *clientSecret
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatal(err)
	}
	// mockoidc's own endpoints, as its Start registers them, and the queue; served here
	// because Start's mux answers 404 to any other path before a middleware sees it.
	mux := http.NewServeMux()
	mux.HandleFunc(mockoidc.AuthorizationEndpoint, m.Authorize)
	mux.HandleFunc(mockoidc.TokenEndpoint, m.Token)
	mux.HandleFunc(mockoidc.UserinfoEndpoint, m.Userinfo)
	mux.HandleFunc(mockoidc.JWKSEndpoint, m.JWKS)
	mux.HandleFunc(mockoidc.DiscoveryEndpoint, m.Discovery)
	mux.HandleFunc("/test/queue-user", queueUser(m))
	m.Server = &http.Server{Addr: ln.Addr().String(), Handler: mux}
	go func() {
		if err := m.Server.Serve(ln); err != nil && err != http.ErrServerClosed {
			log.Fatal(err)
		}
	}()
	// The issuer on stdout: the harness reads it (the port when --listen asked for any).
	fmt.Printf("issuer %s\n", m.Issuer())
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	<-stop
	_ = m.Shutdown()
}

// queueUser answers POST /test/queue-user: the next login signs in that user.
func queueUser(m *mockoidc.MockOIDC) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "POST only", http.StatusMethodNotAllowed)
			return
		}
		email := r.URL.Query().Get("email")
		if email == "" {
			http.Error(w, "email is required", http.StatusBadRequest)
			return
		}
		var groups []string
		if g := r.URL.Query().Get("groups"); g != "" {
			groups = strings.Split(g, ",")
		}
		m.QueueUser(&mockoidc.MockUser{
			Subject:           email,
			Email:             email,
			EmailVerified:     true,
			PreferredUsername: strings.SplitN(email, "@", 2)[0],
			Groups:            groups,
		})
		w.WriteHeader(http.StatusNoContent)
	}
}
