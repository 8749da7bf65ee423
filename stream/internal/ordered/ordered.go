// Package ordered runs a producer, parallel workers and one consumer that
// sees the items strictly in the order the producer made them: the shape
// of both the unit decoder (dwarfread.Units) and the encoding pipeline.
//
// Nothing depends on timing: whatever the number of workers, consume is
// called with the same items in the same order.
//
// ordered imports only the standard library.
package ordered

import "sync"

// Run calls next on its own goroutine until it returns false, hands each
// item to work on one of workers goroutines (work's first argument is the
// goroutine's index, 0 <= w < workers), and calls consume on the caller's
// goroutine with the items in the order next returned them, each after its
// work is done. At most about 2*workers items are in flight: the queue
// behind the consumer holds 2*workers (so the workers keep busy while the
// consumer is on a slow item: with only workers slots, a worker that is
// done waits for the consumer to take the item before it, and the
// pipeline runs nearly serially), one is held by the producer, one is
// being consumed.
//
// If consume returns false, Run stops: it lets the producer and the
// workers finish what they hold, passes every item produced but not
// consumed to drop (worked or not), and returns. drop may be nil.
//
// With workers <= 1 everything runs on the caller's goroutine: next, work
// (with w = 0), consume, in turn.
func Run[T any](workers int, next func() (T, bool), work func(w int, v T), consume func(T) bool, drop func(T)) {
	if drop == nil {
		drop = func(T) {}
	}
	if workers <= 1 {
		for {
			v, ok := next()
			if !ok {
				return
			}
			work(0, v)
			if !consume(v) {
				return
			}
		}
	}
	type slot struct {
		v    T
		done chan struct{}
	}
	queue := make(chan *slot, 2*workers) // in order, for the consumer
	todo := make(chan *slot)             // for the workers
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(queue)
		defer close(todo)
		for {
			v, ok := next()
			if !ok {
				return
			}
			s := &slot{v: v, done: make(chan struct{})}
			select {
			case queue <- s:
			case <-stop:
				drop(v)
				return
			}
			select {
			case todo <- s:
			case <-stop:
				close(s.done) // queued: the cleanup below drops it
				return
			}
		}
	}()
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := range todo {
				work(w, s.v)
				close(s.done)
			}
		}()
	}
	defer func() {
		close(stop)
		for s := range queue {
			<-s.done
			drop(s.v)
		}
		wg.Wait()
	}()
	for s := range queue {
		<-s.done
		if !consume(s.v) {
			return
		}
	}
}
