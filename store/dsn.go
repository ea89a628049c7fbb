package store

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// AcceptedURLForms names the database URLs feedpoller understands, for
// error messages.
const AcceptedURLForms = "postgres://USER:PASSWORD@HOST:PORT/DBNAME (or postgresql://…), sqlite:PATH, or a plain SQLite file path"

// keyValueDSN matches the start of a libpq key=value connection string
// ("host=db user=fp …"), which is refused rather than mistaken for a file
// name.
var keyValueDSN = regexp.MustCompile(`^\s*[A-Za-z_]+\s*=`)

// ParseURL classifies a database URL: empty → the SQLite file under
// ./data/; postgres:// or postgresql:// → PostgreSQL; sqlite:PATH,
// sqlite://PATH, file:PATH or a plain path → that SQLite file. Anything
// else is an error naming the accepted forms. Errors never repeat a
// password.
func ParseURL(u string) (dialect, dsn string, err error) {
	switch {
	case strings.TrimSpace(u) == "":
		return SQLite, DefaultSQLitePath, nil
	case hasPrefixFold(u, "postgres://"), hasPrefixFold(u, "postgresql://"):
		if _, err := url.Parse(u); err != nil {
			var ue *url.Error
			cause := err
			if errors.As(err, &ue) {
				cause = ue.Err // url.Error repeats the whole URL, password included
			}
			return "", "", fmt.Errorf("database URL %s is not a valid URL (%v): percent-encode reserved characters "+
				"and spaces in the user name and password (a space is %%20, @ is %%40)", RedactURL(u), cause)
		}
		return Postgres, u, nil
	case keyValueDSN.MatchString(u):
		return "", "", fmt.Errorf("database URL %s looks like a key=value connection string, which is not accepted: "+
			"write it as postgres://USER:PASSWORD@HOST:PORT/DBNAME?sslmode=… (accepted: %s)", RedactURL(u), AcceptedURLForms)
	}
	path := u
	for _, p := range []string{"sqlite://", "sqlite:", "file:"} {
		if hasPrefixFold(u, p) {
			path = u[len(p):]
			break
		}
	}
	switch {
	case path == u && strings.Contains(u, "://"):
		return "", "", fmt.Errorf("database URL %s: unsupported scheme (accepted: %s)", RedactURL(u), AcceptedURLForms)
	case strings.TrimSpace(path) == "":
		return "", "", fmt.Errorf("database URL %q names no SQLite file (accepted: %s)", u, AcceptedURLForms)
	case strings.ContainsAny(path, "?#"):
		return "", "", fmt.Errorf("SQLite path %q contains ? or #: connection options are not accepted in the path", path)
	}
	return SQLite, path, nil
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// passwordParam finds password values in a URL query or a key=value
// string, quoted or not.
var passwordParam = regexp.MustCompile(`(?i)(\b(?:ssl)?password\s*=\s*)('(?:[^'\\]|\\.)*'?|[^&#\s]*)`)

// RedactURL hides the secrets of a database URL or any other URL for
// logs, errors and `feedpoller config`: the password of the user
// information, and password= / sslpassword= parameters, in URL and in
// key=value form. It works on strings that do not parse, too.
func RedactURL(u string) string {
	out := passwordParam.ReplaceAllString(u, "${1}xxxxx")
	scheme := strings.Index(out, "://")
	if scheme < 0 {
		return out
	}
	rest := out[scheme+3:]
	// The user information ends at the last @ before the query: a password
	// may itself contain / or @ when it is not encoded.
	end := len(rest)
	if i := strings.IndexAny(rest, "?#"); i >= 0 {
		end = i
	}
	at := strings.LastIndex(rest[:end], "@")
	if at < 0 {
		return out
	}
	user, _, hasPassword := strings.Cut(rest[:at], ":")
	if !hasPassword {
		return out
	}
	return out[:scheme+3] + user + ":xxxxx" + rest[at:]
}
