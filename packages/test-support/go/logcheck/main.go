// logcheck verifies a served log with Go's own golang.org/x/mod/sumdb/tlog and sumdb/note, an
// implementation nobody in this repository wrote: it opens the checkpoint with note.Open, reads the
// C2SP tiles through tlog.TileHashReader, checks tlog.TreeHash against the checkpoint, checks every
// entry of every entry bundle with tlog.ProveRecord / tlog.CheckRecord, and checks the JSON proofs
// the server answers with tlog.CheckRecord / tlog.CheckTree (and that they equal Go's own).
//
// Usage: logcheck -url http://127.0.0.1:PORT -key VERIFIER_KEY [-inclusion i:s,...] [-consistency f:t,...]
// Prints a JSON summary on success; on any failure prints the reason to stderr and exits 1.
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

const height = 8

var client = &http.Client{Timeout: 30 * time.Second}

type summary struct {
	Origin       string `json:"origin"`
	Size         int64  `json:"size"`
	RootHash     string `json:"rootHash"`
	TilesFetched int    `json:"tilesFetched"`
	Entries      int64  `json:"entries"`
	Inclusion    int    `json:"inclusionProofs"`
	Consistency  int    `json:"consistencyProofs"`
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "logcheck: "+format+"\n", args...)
	os.Exit(1)
}

func get(url string) ([]byte, error) {
	resp, err := client.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: status %d: %s", url, resp.StatusCode, strings.TrimSpace(string(body)))
	}
	return body, nil
}

// c2spNumber is C2SP's (and Go's) path encoding of a tile number: x001/x234/067.
func c2spNumber(n int64) string {
	s := fmt.Sprintf("%03d", n%1000)
	for n >= 1000 {
		n /= 1000
		s = fmt.Sprintf("x%03d/%s", n%1000, s)
	}
	return s
}

// c2spPath maps one of Go's tiles to its C2SP path: Go's own paths carry the height
// (tile/8/0/…), C2SP's do not (tile/0/…).
func c2spPath(t tlog.Tile) string {
	p := "tile/" + strconv.Itoa(t.L) + "/" + c2spNumber(t.N)
	if t.W != 1<<height {
		p += ".p/" + strconv.Itoa(t.W)
	}
	return p
}

// tileReader fetches C2SP tiles over HTTP; tiles TileHashReader has authenticated are kept.
type tileReader struct {
	base    string
	saved   map[tlog.Tile][]byte
	fetched int
}

func (r *tileReader) Height() int { return height }

func (r *tileReader) ReadTiles(tiles []tlog.Tile) ([][]byte, error) {
	out := make([][]byte, len(tiles))
	for i, t := range tiles {
		if data, ok := r.saved[t]; ok {
			out[i] = data
			continue
		}
		data, err := get(r.base + "/log/" + c2spPath(t))
		if err != nil {
			return nil, err
		}
		r.fetched++
		out[i] = data
	}
	return out, nil
}

func (r *tileReader) SaveTiles(tiles []tlog.Tile, data [][]byte) {
	for i, t := range tiles {
		r.saved[t] = data[i]
	}
}

// cachedHashes answers stored hashes from whole tiles read (and checked) through
// tlog.TileHashReader once each, so proving 70,000 records stays fast.
type cachedHashes struct {
	tree   tlog.Tree
	inner  tlog.HashReader
	tiles  map[tlog.Tile][]byte
	hashes map[int64]tlog.Hash
}

func (c *cachedHashes) ReadHashes(indexes []int64) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(indexes))
	for i, x := range indexes {
		if h, ok := c.hashes[x]; ok {
			out[i] = h
			continue
		}
		t := tlog.TileForIndex(height, x)
		// Widen to the whole tile as this tree has it.
		t.W = 1 << height
		if max := c.tree.N >> uint(t.L*height); t.N<<height+int64(t.W) > max {
			t.W = int(max - t.N<<height)
		}
		data, ok := c.tiles[t]
		if !ok {
			idx := make([]int64, t.W)
			for j := range idx {
				idx[j] = tlog.StoredHashIndex(t.L*height, t.N<<height+int64(j))
			}
			hs, err := c.inner.ReadHashes(idx)
			if err != nil {
				return nil, err
			}
			data = make([]byte, 0, t.W*tlog.HashSize)
			for _, h := range hs {
				data = append(data, h[:]...)
			}
			c.tiles[t] = data
		}
		h, err := tlog.HashFromTile(t, data, x)
		if err != nil {
			return nil, err
		}
		c.hashes[x] = h
		out[i] = h
	}
	return out, nil
}

func parsePairs(s string) [][2]int64 {
	var pairs [][2]int64
	for _, p := range strings.Split(s, ",") {
		if p == "" {
			continue
		}
		a, b, ok := strings.Cut(p, ":")
		x, err1 := strconv.ParseInt(a, 10, 64)
		y, err2 := strconv.ParseInt(b, 10, 64)
		if !ok || err1 != nil || err2 != nil {
			fail("bad pair %q", p)
		}
		pairs = append(pairs, [2]int64{x, y})
	}
	return pairs
}

// forEachPair calls each with every pair of a flag's list, and the pair's name in failures (name's
// format, given the pair).
func forEachPair(list, name string, each func(a, b int64, what string)) {
	for _, pair := range parsePairs(list) {
		each(pair[0], pair[1], fmt.Sprintf(name, pair[0], pair[1]))
	}
}

func equalProofs(a, b []tlog.Hash) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func main() {
	base := flag.String("url", "", "the service's base URL")
	key := flag.String("key", "", "the log's verifier key (note format)")
	inclusion := flag.String("inclusion", "", "index:size pairs to fetch inclusion proofs for")
	consistency := flag.String("consistency", "", "from:to pairs to fetch consistency proofs for")
	flag.Parse()
	*base = strings.TrimSuffix(*base, "/")

	verifier, err := note.NewVerifier(*key)
	if err != nil {
		fail("verifier key: %v", err)
	}
	msg, err := get(*base + "/log/checkpoint")
	if err != nil {
		fail("checkpoint: %v", err)
	}
	n, err := note.Open(msg, note.VerifierList(verifier))
	if err != nil {
		fail("checkpoint note: %v", err)
	}
	// C2SP tlog-checkpoint: origin, size, base64 root hash (tlog.ParseTree wants Go's own header).
	lines := strings.Split(strings.TrimSuffix(n.Text, "\n"), "\n")
	if len(lines) < 3 || lines[0] != verifier.Name() {
		fail("checkpoint text %q: not a checkpoint of origin %q", n.Text, verifier.Name())
	}
	size, err := strconv.ParseInt(lines[1], 10, 64)
	if err != nil || size < 0 || strconv.FormatInt(size, 10) != lines[1] {
		fail("checkpoint size %q", lines[1])
	}
	root, err := tlog.ParseHash(lines[2])
	if err != nil {
		fail("checkpoint root hash %q: %v", lines[2], err)
	}
	tree := tlog.Tree{N: size, Hash: root}
	out := summary{Origin: lines[0], Size: size, RootHash: root.String()}

	tr := &tileReader{base: *base, saved: map[tlog.Tile][]byte{}}
	hr := &cachedHashes{tree: tree, inner: tlog.TileHashReader(tree, tr), tiles: map[tlog.Tile][]byte{}, hashes: map[int64]tlog.Hash{}}

	if size == 0 {
		// Go's TreeHash(0) is all zeros; RFC 6962 and C2SP say SHA-256 of the empty string.
		if root != tlog.Hash(sha256.Sum256(nil)) {
			fail("empty tree: root %v is not SHA-256 of the empty string", root)
		}
	} else {
		th, err := tlog.TreeHash(size, tlog.TileHashReader(tree, tr))
		if err != nil {
			fail("TreeHash: %v", err)
		}
		if th != root {
			fail("TreeHash(%d) = %v, checkpoint says %v", size, th, root)
		}
	}

	// Every entry bundle, every entry: its leaf hash is the tree's leaf, proved and checked.
	for b := int64(0); b*256 < size; b++ {
		width := size - b*256
		path := "tile/entries/" + c2spNumber(b)
		if width < 256 {
			path += ".p/" + strconv.FormatInt(width, 10)
		} else {
			width = 256
		}
		bundle, err := get(*base + "/log/" + path)
		if err != nil {
			fail("entry bundle: %v", err)
		}
		var entries [][]byte
		for rest := bundle; len(rest) > 0; {
			if len(rest) < 2 {
				fail("%s: truncated length", path)
			}
			l := int(rest[0])<<8 | int(rest[1])
			if len(rest) < 2+l {
				fail("%s: truncated entry %d", path, len(entries))
			}
			entries = append(entries, rest[2:2+l])
			rest = rest[2+l:]
		}
		if int64(len(entries)) != width {
			fail("%s: %d entries, want %d", path, len(entries), width)
		}
		for j, e := range entries {
			index := b*256 + int64(j)
			p, err := tlog.ProveRecord(size, index, hr)
			if err != nil {
				fail("ProveRecord(%d, %d): %v", size, index, err)
			}
			if err := tlog.CheckRecord(p, size, root, index, tlog.RecordHash(e)); err != nil {
				fail("entry %d of %s: CheckRecord: %v", index, path, err)
			}
			out.Entries++
		}
	}

	rootAt := func(s int64) tlog.Hash {
		if s == size {
			return root
		}
		h, err := tlog.TreeHash(s, hr)
		if err != nil {
			fail("TreeHash(%d): %v", s, err)
		}
		return h
	}

	forEachPair(*inclusion, "inclusion proof %d@%d", func(index, s int64, what string) {
		var got struct {
			Index    int64       `json:"index"`
			Size     int64       `json:"size"`
			LeafHash tlog.Hash   `json:"leafHash"`
			Proof    []tlog.Hash `json:"proof"`
		}
		getJSON(what, fmt.Sprintf("%s/log/proof/inclusion?index=%d&size=%d", *base, index, s), &got)
		if got.Index != index || got.Size != s {
			fail("%s answered for %d@%d", what, got.Index, got.Size)
		}
		leaf, err := hr.ReadHashes([]int64{tlog.StoredHashIndex(0, index)})
		if err != nil || leaf[0] != got.LeafHash {
			fail("%s: leafHash %v is not the tree's leaf", what, got.LeafHash)
		}
		want, err := tlog.ProveRecord(s, index, hr)
		checkProof(what, "CheckRecord", tlog.CheckRecord(got.Proof, s, rootAt(s), index, got.LeafHash),
			"ProveRecord", got.Proof, want, err)
		out.Inclusion++
	})

	forEachPair(*consistency, "consistency proof %d→%d", func(from, to int64, what string) {
		var got struct {
			From  int64       `json:"from"`
			To    int64       `json:"to"`
			Proof []tlog.Hash `json:"proof"`
		}
		getJSON(what, fmt.Sprintf("%s/log/proof/consistency?from=%d&to=%d", *base, from, to), &got)
		if got.From != from || got.To != to {
			fail("%s answered for %d→%d", what, got.From, got.To)
		}
		want, err := tlog.ProveTree(to, from, hr)
		checkProof(what, "CheckTree", tlog.CheckTree(got.Proof, to, rootAt(to), from, rootAt(from)),
			"ProveTree", got.Proof, want, err)
		out.Consistency++
	})

	out.TilesFetched = tr.fetched
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		fail("%v", err)
	}
}

// getJSON fetches url and decodes its JSON answer into v; what names the answer in a failure.
func getJSON(what, url string, v any) {
	body, err := get(url)
	if err != nil {
		fail("%s: %v", what, err)
	}
	if err := json.NewDecoder(bytes.NewReader(body)).Decode(v); err != nil {
		fail("%s: %v", what, err)
	}
}

// checkProof fails unless a served proof checked against the roots (checkErr, from Go's checker
// named check) and is the very proof Go's own prover (named prove) makes: want, or proveErr.
func checkProof(what, check string, checkErr error, prove string, got, want []tlog.Hash, proveErr error) {
	if checkErr != nil {
		fail("%s: %s: %v", what, check, checkErr)
	}
	if proveErr != nil || !equalProofs(got, want) {
		fail("%s is not Go's %s", what, prove)
	}
}
