// Package fakehub is a Hugging Face Hub on loopback for tests: it serves
// model folders from disk with the Hub's URL layout and headers, and can
// misbehave on purpose (cut a connection mid-file, send wrong bytes,
// refuse a gated repo without a token).
//
//	GET  /api/models/{org}/{name}/revision/{rev}   file list (size, blobId, lfs.sha256), commit in "sha"
//	HEAD /{org}/{name}/resolve/{rev}/{file}        X-Repo-Commit, ETag; LFS files: 302 to /cdn/…
//	                                               with X-Linked-Etag (sha256) and X-Linked-Size
//	GET  /{org}/{name}/resolve/{rev}/{file}        small files directly, LFS files by the redirect
//	GET  /cdn/{sha256}                             the LFS object, with Range requests
package fakehub

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// LFSFrom is the size from which a file is an LFS object (the Hub uses
// LFS for big and binary files; *.safetensors always are).
const LFSFrom = 10 << 20

// File is one file of a fake repo.
type File struct {
	Name string
	Data []byte
	LFS  bool
}

func (f File) sha256() string { s := sha256.Sum256(f.Data); return hex.EncodeToString(s[:]) }

// gitSHA1 is the git blob id: sha1("blob SIZE\0" + data).
func gitSHA1(data []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(data))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// pointer is the git-lfs pointer file the repo keeps in git.
func (f File) pointer() []byte {
	return fmt.Appendf(nil, "version https://git-lfs.github.com/spec/v1\noid sha256:%s\nsize %d\n", f.sha256(), len(f.Data))
}

// Repo is one fake model repo at one commit.
type Repo struct {
	ID     string
	Commit string
	Gated  bool   // resolve answers 401 GatedRepo unless the request carries Token
	Token  string // the token that opens a gated repo
	Files  []File
	// Corrupt names files served with one byte changed (the metadata stays right).
	Corrupt map[string]bool
}

// FromDir reads a model folder into a repo; *.safetensors and files of
// LFSFrom bytes or more are LFS objects.
func FromDir(id, commit, dir string) (*Repo, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	r := &Repo{ID: id, Commit: commit, Corrupt: map[string]bool{}}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		r.Files = append(r.Files, File{Name: e.Name(), Data: data,
			LFS: strings.HasSuffix(e.Name(), ".safetensors") || len(data) >= LFSFrom})
	}
	return r, nil
}

func (r *Repo) file(name string) (File, bool) {
	for _, f := range r.Files {
		if f.Name == name {
			return f, true
		}
	}
	return File{}, false
}

// Hub is the server. Its knobs may be changed between requests.
type Hub struct {
	*httptest.Server

	mu    sync.Mutex
	repos map[string]*Repo
	// CutAfter cuts the connection of the next CutTimes GETs of an LFS
	// object after that many bytes of the body (0: never).
	CutAfter, CutTimes int
	// Stall makes a GET of an LFS object send its headers and StallAfter
	// bytes, then nothing until the client goes away.
	Stall      bool
	StallAfter int
	// NoAPI answers 404 to /api/models (a mirror that only serves files).
	NoAPI bool
	// BranchOnly makes /resolve/ know "main" only, not the commit hash, and
	// the API leave out "sha" (a minimal mirror).
	BranchOnly bool
	// Requests logs "METHOD PATH Range=… Auth=…" for every request.
	Requests []string
	stalled  chan struct{}
}

// New starts a fake hub on 127.0.0.1 serving repos.
func New(repos ...*Repo) *Hub {
	h := &Hub{repos: map[string]*Repo{}, stalled: make(chan struct{})}
	for _, r := range repos {
		h.repos[r.ID] = r
	}
	h.Server = httptest.NewServer(http.HandlerFunc(h.serve))
	return h
}

// Close releases stalled handlers, then stops the server.
func (h *Hub) Close() {
	h.mu.Lock()
	select {
	case <-h.stalled:
	default:
		close(h.stalled)
	}
	h.mu.Unlock()
	h.Server.CloseClientConnections()
	h.Server.Close()
}

// Log returns a copy of the request log.
func (h *Hub) Log() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.Requests...)
}

// Set changes knobs under the hub's lock.
func (h *Hub) Set(f func(h *Hub)) {
	h.mu.Lock()
	defer h.mu.Unlock()
	f(h)
}

func (h *Hub) serve(w http.ResponseWriter, req *http.Request) {
	h.mu.Lock()
	h.Requests = append(h.Requests, fmt.Sprintf("%s %s Range=%s Auth=%s", req.Method, req.URL.Path,
		req.Header.Get("Range"), req.Header.Get("Authorization")))
	h.mu.Unlock()
	p := req.URL.Path
	switch {
	case strings.HasPrefix(p, "/api/models/"):
		h.serveAPI(w, req, strings.TrimPrefix(p, "/api/models/"))
	case strings.HasPrefix(p, "/cdn/"):
		h.serveCDN(w, req, strings.TrimPrefix(p, "/cdn/"))
	default:
		h.serveResolve(w, req, strings.TrimPrefix(p, "/"))
	}
}

// repoAndRest splits "org/name/<sep>/rest" into the repo and rest.
func (h *Hub) repoAndRest(p, sep string) (*Repo, string, string, bool) {
	parts := strings.SplitN(p, "/", 4)
	if len(parts) < 4 || parts[2] != sep {
		return nil, "", "", false
	}
	h.mu.Lock()
	r := h.repos[parts[0]+"/"+parts[1]]
	h.mu.Unlock()
	if r == nil {
		return nil, parts[0] + "/" + parts[1], "", false
	}
	return r, r.ID, parts[3], true
}

func notFound(w http.ResponseWriter, code, msg string) {
	w.Header().Set("X-Error-Code", code)
	w.Header().Set("X-Error-Message", msg)
	// The Hub answers 401 to an unknown repo, so as not to reveal private ones.
	status := http.StatusNotFound
	if code == "RepoNotFound" {
		status = http.StatusUnauthorized
	}
	http.Error(w, msg, status)
}

// revision resolves a branch name or the commit itself.
func (r *Repo) revision(rev string) bool { return rev == "main" || rev == r.Commit }

func (h *Hub) serveAPI(w http.ResponseWriter, req *http.Request, p string) {
	h.mu.Lock()
	noAPI := h.NoAPI
	h.mu.Unlock()
	r, id, rest, ok := h.repoAndRest(p, "revision")
	if noAPI || (!ok && r == nil && id == "") {
		http.NotFound(w, req)
		return
	}
	if r == nil {
		notFound(w, "RepoNotFound", "Repository not found")
		return
	}
	if !r.revision(rest) {
		notFound(w, "RevisionNotFound", "Invalid rev id: "+rest)
		return
	}
	type lfs struct {
		SHA256      string `json:"sha256"`
		Size        int    `json:"size"`
		PointerSize int    `json:"pointerSize"`
	}
	type sibling struct {
		RFilename string `json:"rfilename"`
		Size      int    `json:"size"`
		BlobID    string `json:"blobId"`
		LFS       *lfs   `json:"lfs,omitempty"`
	}
	var sib []sibling
	for _, f := range r.Files {
		s := sibling{RFilename: f.Name, Size: len(f.Data), BlobID: gitSHA1(f.Data)}
		if f.LFS {
			s.BlobID = gitSHA1(f.pointer())
			s.LFS = &lfs{SHA256: f.sha256(), Size: len(f.Data), PointerSize: len(f.pointer())}
		}
		sib = append(sib, s)
	}
	sort.Slice(sib, func(i, j int) bool { return sib[i].RFilename < sib[j].RFilename })
	h.mu.Lock()
	branchOnly := h.BranchOnly
	h.mu.Unlock()
	sha := r.Commit
	if branchOnly {
		sha = ""
	}
	gated := any(false)
	if r.Gated {
		gated = "manual"
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"id": r.ID, "modelId": r.ID, "sha": sha,
		"gated": gated, "private": false, "siblings": sib})
}

func (h *Hub) serveResolve(w http.ResponseWriter, req *http.Request, p string) {
	r, _, rest, ok := h.repoAndRest(p, "resolve")
	if !ok {
		notFound(w, "RepoNotFound", "Repository not found")
		return
	}
	rev, name, _ := strings.Cut(rest, "/")
	h.mu.Lock()
	branchOnly := h.BranchOnly
	h.mu.Unlock()
	if !r.revision(rev) || (branchOnly && rev != "main") {
		notFound(w, "RevisionNotFound", "Invalid rev id: "+rev)
		return
	}
	if r.Gated && req.Header.Get("Authorization") != "Bearer "+r.Token {
		w.Header().Set("X-Error-Code", "GatedRepo")
		w.Header().Set("X-Error-Message", "Access to model "+r.ID+" is restricted. You must have access to it and be authenticated to access it. Please log in.")
		http.Error(w, "gated", http.StatusUnauthorized)
		return
	}
	f, ok := r.file(name)
	if !ok {
		notFound(w, "EntryNotFound", name+" does not exist on \""+rev+"\"")
		return
	}
	w.Header().Set("X-Repo-Commit", r.Commit)
	w.Header().Set("Accept-Ranges", "bytes")
	if f.LFS {
		w.Header().Set("ETag", `"`+gitSHA1(f.pointer())+`"`)
		w.Header().Set("X-Linked-Etag", `"`+f.sha256()+`"`)
		w.Header().Set("X-Linked-Size", strconv.Itoa(len(f.Data)))
		w.Header().Set("Location", h.URL+"/cdn/"+f.sha256()+"?repo="+r.ID+"&file="+name)
		w.WriteHeader(http.StatusFound)
		return
	}
	w.Header().Set("ETag", `"`+gitSHA1(f.Data)+`"`)
	data := f.Data
	if r.Corrupt[name] {
		data = corrupt(data)
	}
	http.ServeContent(w, req, name, time.Time{}, bytes.NewReader(data))
}

func corrupt(data []byte) []byte {
	c := append([]byte(nil), data...)
	if len(c) > 0 {
		c[len(c)/2] ^= 0xff
	}
	return c
}

// serveCDN serves an LFS object by its sha256, honouring Range, and cuts
// or stalls the connection when asked to.
func (h *Hub) serveCDN(w http.ResponseWriter, req *http.Request, sha string) {
	q := req.URL.Query()
	h.mu.Lock()
	r := h.repos[q.Get("repo")]
	cutAfter, stall, stallAfter := 0, h.Stall, h.StallAfter
	if h.CutTimes > 0 && req.Method == http.MethodGet {
		h.CutTimes--
		cutAfter = h.CutAfter
	}
	h.mu.Unlock()
	if r == nil {
		http.NotFound(w, req)
		return
	}
	f, ok := r.file(q.Get("file"))
	if !ok || f.sha256() != sha {
		http.NotFound(w, req)
		return
	}
	data := f.Data
	if r.Corrupt[f.Name] {
		data = corrupt(data)
	}
	w.Header().Set("ETag", `"`+sha+`"`)
	switch {
	case stall:
		w.Header().Set("Content-Length", strconv.Itoa(len(data)))
		w.WriteHeader(http.StatusOK)
		w.Write(data[:min(stallAfter, len(data))])
		w.(http.Flusher).Flush()
		select {
		case <-req.Context().Done():
		case <-h.stalled:
		}
	case cutAfter > 0:
		cutServe(w, req, data, cutAfter)
	default:
		http.ServeContent(w, req, f.Name, time.Time{}, bytes.NewReader(data))
	}
}

// cutServe sends the headers of the whole answer (or of the range asked
// for) and n bytes of it, then closes the TCP connection.
func cutServe(w http.ResponseWriter, req *http.Request, data []byte, n int) {
	start := 0
	if rg := req.Header.Get("Range"); strings.HasPrefix(rg, "bytes=") {
		start, _ = strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(rg, "bytes="), "-"))
		w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", start, len(data)-1, len(data)))
		w.Header().Set("Content-Length", strconv.Itoa(len(data)-start))
		w.WriteHeader(http.StatusPartialContent)
	} else {
		w.Header().Set("Content-Length", strconv.Itoa(len(data)))
		w.WriteHeader(http.StatusOK)
	}
	w.Write(data[start:min(start+n, len(data))])
	w.(http.Flusher).Flush()
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			conn.Close()
		}
	}
}
