package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"sort"
	"strconv"
	"strings"
)

// RemoteFile is one file of a repo revision as the Hub describes it.
type RemoteFile struct {
	Name   string // path in the repo, "/"-separated
	Size   int64  // bytes of the real file (the LFS object, not its pointer); -1 unknown
	SHA256 string // LFS files: the object's sha256; "" for files kept in git
	BlobID string // git blob sha1 (of the pointer, for LFS files)
}

// RepoInfo is a revision of a model repo.
type RepoInfo struct {
	ID     string
	Commit string // the 40-hex commit the revision resolved to
	Gated  bool   // the Hub asks users to accept a licence first
	Files  []RemoteFile
}

// apiModel is the JSON of /api/models/{repo}/revision/{rev}?blobs=true.
type apiModel struct {
	ID       string          `json:"id"`
	SHA      string          `json:"sha"`
	Gated    json.RawMessage `json:"gated"` // false, "auto" or "manual"
	Siblings []struct {
		RFilename string `json:"rfilename"`
		Size      *int64 `json:"size"`
		BlobID    string `json:"blobId"`
		LFS       *struct {
			SHA256 string `json:"sha256"`
			Size   int64  `json:"size"`
		} `json:"lfs"`
	} `json:"siblings"`
}

// Info fetches the file list of a revision (branch, tag or commit).
func (c *Client) Info(ctx context.Context, repo, rev string) (*RepoInfo, error) {
	if err := CheckRepoID(repo); err != nil {
		return nil, err
	}
	if c.Offline {
		return nil, fmt.Errorf("%w: HF_HUB_OFFLINE is set", ErrOffline)
	}
	req, err := c.newRequest(ctx, http.MethodGet, c.apiURL(repo, rev))
	if err != nil {
		return nil, err
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return nil, c.netError(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound && resp.Header.Get("X-Error-Code") == "" {
		return c.infoFromFiles(ctx, repo, rev) // a mirror that serves files but no API
	}
	if resp.StatusCode != http.StatusOK {
		return nil, c.statusError(resp, repo, rev)
	}
	var m apiModel
	if err := json.NewDecoder(io.LimitReader(resp.Body, 64<<20)).Decode(&m); err != nil {
		return nil, fmt.Errorf("%s: the Hub's answer is not model JSON: %v", repo, err)
	}
	info := &RepoInfo{ID: repo, Commit: m.SHA, Gated: len(m.Gated) > 0 && string(m.Gated) != "false" && string(m.Gated) != "null"}
	for _, s := range m.Siblings {
		f := RemoteFile{Name: s.RFilename, Size: -1, BlobID: s.BlobID}
		if s.Size != nil {
			f.Size = *s.Size
		}
		if s.LFS != nil {
			f.SHA256, f.Size = strings.ToLower(s.LFS.SHA256), s.LFS.Size
		}
		info.Files = append(info.Files, f)
	}
	return info, nil
}

// fileMeta is what a HEAD of a resolve URL says about one file.
type fileMeta struct {
	Commit   string // X-Repo-Commit
	ETag     string // X-Linked-Etag (LFS: the sha256) else ETag (git sha1), unquoted
	Size     int64  // X-Linked-Size else Content-Length; -1 unknown
	Location string // where to GET it (a redirect target for LFS files)
}

// head asks for a file's metadata without following the redirect to the
// CDN (its headers are on the redirect itself), but following relative
// redirects, which the Hub sends for renamed repos (huggingface_hub does
// the same).
func (c *Client) head(ctx context.Context, repo, rev, file string) (fileMeta, error) {
	u := c.resolveURL(repo, rev, file)
	noFollow := *c.HTTP
	noFollow.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	for hops := 0; ; hops++ {
		req, err := c.newRequest(ctx, http.MethodHead, u)
		if err != nil {
			return fileMeta{}, err
		}
		req.Header.Set("Accept-Encoding", "identity")
		resp, err := noFollow.Do(req)
		if err != nil {
			return fileMeta{}, c.netError(err)
		}
		resp.Body.Close()
		loc := resp.Header.Get("Location")
		if resp.StatusCode >= 300 && resp.StatusCode < 400 && loc != "" {
			target, err := url.Parse(loc)
			if err == nil && target.Host == "" && hops < 5 {
				base, _ := url.Parse(u)
				u = base.ResolveReference(target).String()
				continue
			}
		} else if resp.StatusCode != http.StatusOK {
			return fileMeta{}, c.statusError(resp, repo, file)
		}
		return metaFromHeaders(resp, u, loc)
	}
}

func metaFromHeaders(resp *http.Response, u, loc string) (fileMeta, error) {
	m := fileMeta{Commit: resp.Header.Get("X-Repo-Commit"), Size: -1, Location: u}
	m.ETag = normalizeETag(resp.Header.Get("X-Linked-Etag"))
	if m.ETag == "" {
		m.ETag = normalizeETag(resp.Header.Get("ETag"))
	}
	size := resp.Header.Get("X-Linked-Size")
	if size == "" {
		size = resp.Header.Get("Content-Length")
	}
	if n, err := strconv.ParseInt(size, 10, 64); err == nil && n >= 0 {
		m.Size = n
	}
	if loc != "" {
		base, _ := url.Parse(u)
		if target, err := url.Parse(loc); err == nil {
			m.Location = base.ResolveReference(target).String()
		}
	}
	return m, nil
}

// usableETag: an ETag names a file in blobs/, so it must be a plain name.
func usableETag(e string) bool {
	return e != "" && e != "." && e != ".." && !strings.ContainsAny(e, "/\\:*?\"<>|\x00")
}

// normalizeETag strips W/ and the quotes, as huggingface_hub's _normalize_etag.
func normalizeETag(e string) string {
	e = strings.TrimSpace(e)
	e = strings.TrimPrefix(e, "W/")
	return strings.Trim(e, `"`)
}

// Wanted says whether Loupe needs a file of a repo: the config, the
// generation config, the tokenizer files, the chat template and the
// safetensors weights with their index. Files in sub-folders (onnx/,
// original/) and other weight formats are left on the Hub.
func Wanted(name string) bool {
	if strings.ContainsAny(name, "/\\:") || strings.HasPrefix(name, ".") {
		return false
	}
	switch name {
	case "config.json", "generation_config.json", "tokenizer.json", "tokenizer_config.json",
		"special_tokens_map.json", "chat_template.jinja", "chat_template.json", "vocab.json", "merges.txt",
		"added_tokens.json", "LICENSE", "LICENSE.txt", "README.md":
		return true
	}
	return strings.HasSuffix(name, ".safetensors") || strings.HasSuffix(name, ".safetensors.index.json")
}

// selectFiles keeps the wanted files, sorted small first so the config and
// tokenizer arrive before the weights.
func selectFiles(files []RemoteFile) []RemoteFile {
	var out []RemoteFile
	for _, f := range files {
		if Wanted(f.Name) {
			out = append(out, f)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		wi, wj := strings.HasSuffix(out[i].Name, ".safetensors"), strings.HasSuffix(out[j].Name, ".safetensors")
		if wi != wj {
			return wj
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// hasWeights says whether a file list holds safetensors weights.
func hasWeights(files []RemoteFile) bool {
	for _, f := range files {
		if strings.HasSuffix(f.Name, ".safetensors") {
			return true
		}
	}
	return false
}

// otherFormats names the weight formats a repo has instead (for the error).
func otherFormats(files []RemoteFile) string {
	seen := map[string]bool{}
	var exts []string
	for _, f := range files {
		ext := path.Ext(f.Name)
		switch ext {
		case ".gguf", ".bin", ".pt", ".pth", ".onnx", ".h5", ".msgpack", ".mlx", ".npz":
			if !seen[ext] {
				seen[ext] = true
				exts = append(exts, ext)
			}
		}
	}
	if len(exts) == 0 {
		return "no weight files"
	}
	return "only " + strings.Join(exts, ", ") + " files"
}

// knownFiles are the names infoFromFiles tries, the index's shards aside.
var knownFiles = []string{"config.json", "generation_config.json", "tokenizer.json", "tokenizer_config.json",
	"special_tokens_map.json", "chat_template.jinja", "vocab.json", "merges.txt",
	"model.safetensors.index.json", "model.safetensors"}

// infoFromFiles builds the file list without the API, from HEADs of the
// names a model folder usually has and the shards its index names; the
// commit comes from X-Repo-Commit.
func (c *Client) infoFromFiles(ctx context.Context, repo, rev string) (*RepoInfo, error) {
	info := &RepoInfo{ID: repo}
	add := func(name string) error {
		m, err := c.head(ctx, repo, rev, name)
		if errors.Is(err, ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		if info.Commit == "" {
			info.Commit = m.Commit
		}
		info.Files = append(info.Files, RemoteFile{Name: name, Size: m.Size})
		return nil
	}
	for _, name := range knownFiles {
		if err := add(name); err != nil {
			return nil, err
		}
	}
	if len(info.Files) == 0 {
		return nil, fmt.Errorf("%w: %s (no config.json at %s)", ErrNotFound, repo, c.resolveURL(repo, rev, "config.json"))
	}
	for _, f := range info.Files {
		if f.Name != "model.safetensors.index.json" {
			continue
		}
		shards, err := c.indexShards(ctx, repo, rev)
		if err != nil {
			return nil, err
		}
		for _, s := range shards {
			if err := add(s); err != nil {
				return nil, err
			}
		}
	}
	return info, nil
}

// indexShards reads the weight_map of model.safetensors.index.json.
func (c *Client) indexShards(ctx context.Context, repo, rev string) ([]string, error) {
	req, err := c.newRequest(ctx, http.MethodGet, c.resolveURL(repo, rev, "model.safetensors.index.json"))
	if err != nil {
		return nil, err
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return nil, c.netError(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, c.statusError(resp, repo, "model.safetensors.index.json")
	}
	var idx struct {
		WeightMap map[string]string `json:"weight_map"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 64<<20)).Decode(&idx); err != nil {
		return nil, fmt.Errorf("%s: model.safetensors.index.json: %v", repo, err)
	}
	var out []string
	for _, s := range uniqueSorted(idx.WeightMap) {
		if Wanted(s) && s != "model.safetensors" {
			out = append(out, s)
		}
	}
	return out, nil
}
