package hub

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// DefaultEndpoint is the public Hub; HF_ENDPOINT replaces it (mirrors).
const DefaultEndpoint = "https://huggingface.co"

// Sentinel errors; the wrapped message says what to do.
var (
	ErrOffline  = errors.New("cannot reach the Hugging Face Hub")
	ErrGated    = errors.New("access to the model is restricted")
	ErrNotFound = errors.New("not found on the Hub")
	ErrChecksum = errors.New("downloaded file does not match the Hub's checksum")
	ErrNoModel  = errors.New("the repo has no files Loupe can open")
)

// Client talks to one Hub endpoint and writes into one cache folder.
type Client struct {
	Endpoint string // "https://huggingface.co", or HF_ENDPOINT
	Token    string // sent as "Authorization: Bearer" to Endpoint only; HF_TOKEN
	Cache    string // hub cache folder; CacheDir()
	Offline  bool   // HF_HUB_OFFLINE: never touch the network, use the cache
	HTTP     *http.Client

	// StallTimeout ends a download that has received no byte for this
	// long, so a dead connection is an error, never a hang.
	StallTimeout time.Duration
	// Retries is how many times in a row a cut connection is resumed
	// (with a Range request) before the download gives up.
	Retries int
	// RetryWait is the first pause before a retry; it doubles each time.
	RetryWait time.Duration
}

// NewClient is a client set from the environment the way huggingface_hub
// reads it: HF_ENDPOINT, HF_TOKEN (else the token file `hf auth login`
// writes, $HF_TOKEN_PATH or $HF_HOME/token), HF_HUB_OFFLINE and the cache
// variables of CacheDir.
func NewClient() *Client {
	return &Client{
		Endpoint:     endpointFromEnv(),
		Token:        tokenFromEnv(),
		Cache:        CacheDir(),
		Offline:      truthy(os.Getenv("HF_HUB_OFFLINE")),
		HTTP:         newHTTPClient(10 * time.Second),
		StallTimeout: 30 * time.Second,
		Retries:      5,
		RetryWait:    500 * time.Millisecond,
	}
}

func endpointFromEnv() string {
	if e := strings.TrimRight(os.Getenv("HF_ENDPOINT"), "/"); e != "" {
		return e
	}
	return DefaultEndpoint
}

func tokenFromEnv() string {
	for _, v := range []string{"HF_TOKEN", "HUGGING_FACE_HUB_TOKEN"} {
		if t := strings.TrimSpace(os.Getenv(v)); t != "" {
			return t
		}
	}
	path := os.Getenv("HF_TOKEN_PATH")
	if path == "" {
		path = filepath.Join(hfHome(), "token")
	}
	if data, err := os.ReadFile(expandHome(path)); err == nil {
		return strings.TrimSpace(string(data))
	}
	return ""
}

func truthy(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "1", "on", "yes", "true":
		return true
	}
	return false
}

// newHTTPClient bounds every phase before the body: dialling, TLS, and
// the wait for response headers. The body is bounded by StallTimeout.
func newHTTPClient(connect time.Duration) *http.Client {
	return &http.Client{Transport: &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: connect, KeepAlive: 30 * time.Second}).DialContext,
		TLSHandshakeTimeout:   connect,
		ResponseHeaderTimeout: 3 * connect,
		ForceAttemptHTTP2:     true,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       90 * time.Second,
	}}
}

// newRequest builds a request; the token goes only to the endpoint's host
// (a redirect to a CDN drops it: net/http strips Authorization across hosts).
func (c *Client) newRequest(ctx context.Context, method, rawURL string) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, rawURL, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", "loupe-hub/1")
	if c.Token != "" && sameHost(rawURL, c.Endpoint) {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	return req, nil
}

func sameHost(a, b string) bool {
	ua, err1 := url.Parse(a)
	ub, err2 := url.Parse(b)
	return err1 == nil && err2 == nil && ua.Host == ub.Host
}

// apiURL is {endpoint}/api/models/{repo}/revision/{rev}?blobs=true: the
// file list with sizes, git blob ids and LFS sha256s.
func (c *Client) apiURL(repo, rev string) string {
	return c.Endpoint + "/api/models/" + repo + "/revision/" + url.PathEscape(rev) + "?blobs=true"
}

// resolveURL is {endpoint}/{repo}/resolve/{rev}/{file}, the public file URL.
func (c *Client) resolveURL(repo, rev, file string) string {
	parts := strings.Split(file, "/")
	for i, p := range parts {
		parts[i] = url.PathEscape(p)
	}
	return c.Endpoint + "/" + repo + "/resolve/" + url.PathEscape(rev) + "/" + strings.Join(parts, "/")
}

// netError turns a transport failure into a message a teacher can act on.
// A cancelled context is passed through unchanged.
func (c *Client) netError(err error) error {
	if err == nil || errors.Is(err, context.Canceled) {
		return err
	}
	var dns *net.DNSError
	var op *net.OpError
	switch {
	case errors.As(err, &dns):
		return fmt.Errorf("%w %s: no network or no DNS (%v); check the connection, or set HF_ENDPOINT to a mirror",
			ErrOffline, c.Endpoint, dns)
	case errors.As(err, &op) && op.Op == "dial":
		return fmt.Errorf("%w %s: %v; check the connection, or set HF_ENDPOINT to a mirror", ErrOffline, c.Endpoint, op.Err)
	case isTimeout(err):
		return fmt.Errorf("%w %s: timed out (%v); check the connection", ErrOffline, c.Endpoint, err)
	}
	return err
}

func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &t) && t.Timeout())
}

// statusError words an HTTP error the way the Hub means it: its
// X-Error-Code header says GatedRepo, RepoNotFound, RevisionNotFound or
// EntryNotFound, and X-Error-Message says more.
func (c *Client) statusError(resp *http.Response, repo, what string) error {
	code := resp.Header.Get("X-Error-Code")
	msg := resp.Header.Get("X-Error-Message")
	page := c.Endpoint + "/" + repo
	switch {
	case code == "GatedRepo" || (resp.StatusCode == http.StatusForbidden && c.Token != ""):
		if c.Token == "" {
			return fmt.Errorf("%w: %s is gated: accept its licence on %s, then set HF_TOKEN to a token of that account", ErrGated, repo, page)
		}
		return fmt.Errorf("%w: %s is gated and this HF_TOKEN has no access yet: accept its licence on %s (HTTP %d)", ErrGated, repo, page, resp.StatusCode)
	case code == "RevisionNotFound":
		return fmt.Errorf("%w: %s has no revision %s", ErrNotFound, repo, what)
	case code == "EntryNotFound":
		return fmt.Errorf("%w: %s has no file %s", ErrNotFound, repo, what)
	case resp.StatusCode == http.StatusUnauthorized:
		if c.Token == "" {
			return fmt.Errorf("%w: %s: no such model, or it is private or gated (HTTP 401); check the name, or set HF_TOKEN", ErrNotFound, repo)
		}
		return fmt.Errorf("%w: %s: the token was refused (HTTP 401): check HF_TOKEN", ErrGated, repo)
	case resp.StatusCode == http.StatusForbidden:
		return fmt.Errorf("%w: %s: HTTP 403 %s", ErrGated, repo, msg)
	case resp.StatusCode == http.StatusNotFound:
		return fmt.Errorf("%w: %s %s (HTTP 404)", ErrNotFound, repo, what)
	}
	if msg == "" {
		msg = resp.Status
	}
	return fmt.Errorf("%s %s: HTTP %d from %s: %s", repo, what, resp.StatusCode, c.Endpoint, msg)
}
