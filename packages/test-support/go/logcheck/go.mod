module signal.local/logcheck

go 1.19

require golang.org/x/mod v0.7.0

// Debian's golang-golang-x-mod-dev: built offline (GOPROXY=off), nothing is downloaded.
replace golang.org/x/mod => /usr/share/gocode/src/golang.org/x/mod
