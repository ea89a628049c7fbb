package proc

import "testing"

func TestParseProcStat(t *testing.T) {
	// A command name with spaces and a parenthesis must not shift fields.
	line := "4242 (feed poller) x) S 17 4242 4242 0 -1 4194560 100 0 0 0 250 75 3 4 20 0 9 0 123 456 789"
	s, err := ParseStat([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	if s.PPID != 17 || s.Utime != 250 || s.Stime != 75 || s.Cutime != 3 || s.Cstime != 4 {
		t.Fatalf("got %+v", s)
	}
	if _, err := ParseStat([]byte("12 no-parens S 1")); err == nil {
		t.Fatal("a line without a command name parsed")
	}
}
