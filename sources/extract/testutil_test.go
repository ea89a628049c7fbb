package extract

import "fmt"

func fmtAny(v any) string { return fmt.Sprintf("%+v", v) }
