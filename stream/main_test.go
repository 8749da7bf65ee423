package stream

import (
	"testing"

	"github.com/btfstream/btfstream/stream/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }
