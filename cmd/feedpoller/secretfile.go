package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/feedpoller/feedpoller/store"
)

// adminTokenFileName is where, in the data directory, the generated admin
// token is written.
const adminTokenFileName = "admin-token"

// dataDir is where feedpoller keeps its files: the SQLite database's
// directory, or ./data with PostgreSQL.
func dataDir(cfg Config) (string, error) {
	dialect, dsn, err := store.ParseURL(cfg.DatabaseURL)
	if err != nil {
		return "", err
	}
	if dialect == store.SQLite {
		return filepath.Dir(dsn), nil
	}
	return "data", nil
}

// adminTokenFile is the absolute path of the generated admin token's file.
func adminTokenFile(cfg Config) (string, error) {
	dir, err := dataDir(cfg)
	if err != nil {
		return "", err
	}
	abs, err := filepath.Abs(filepath.Join(dir, adminTokenFileName))
	if err != nil {
		return "", fmt.Errorf("admin token file: %w", err)
	}
	return abs, nil
}

// writeSecretFile writes secret to path, readable and writable by this
// user only, replacing what was there in one step.
func writeSecretFile(path, secret string) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+"-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() { _ = os.Remove(f.Name()) }() // after the rename, a no-op
	if err := f.Chmod(0o600); err != nil {
		_ = f.Close() // the error to report is the one above
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := f.WriteString(secret + "\n"); err != nil {
		_ = f.Close() // the error to report is the one above
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// removeStaleTokenFile deletes the file of a revoked generated token: it
// no longer opens anything, and a credential-looking file that does not
// work only misleads. A file that is not there is no error.
func removeStaleTokenFile(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove the revoked admin token's file: %w", err)
	}
	return nil
}
