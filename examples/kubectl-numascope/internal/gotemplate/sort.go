package gotemplate

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
)

// sortedMap is the keys and values of the map m in the order of its keys,
// as text/template ranges over a map (it sorts with internal/fmtsort, which
// no other module may import): numbers, strings and booleans by value,
// other keys by their printed form.
func sortedMap(m reflect.Value) (keys, values []reflect.Value) {
	keys = m.MapKeys()
	slices.SortStableFunc(keys, compareKeys)
	values = make([]reflect.Value, len(keys))
	for i, k := range keys {
		values[i] = m.MapIndex(k)
	}
	return keys, values
}

func compareKeys(a, b reflect.Value) int {
	if a.Kind() == reflect.Interface {
		a = a.Elem()
	}
	if b.Kind() == reflect.Interface {
		b = b.Elem()
	}
	if a.Kind() != b.Kind() {
		return cmp.Compare(a.Kind(), b.Kind())
	}
	switch a.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return cmp.Compare(a.Int(), b.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return cmp.Compare(a.Uint(), b.Uint())
	case reflect.Float32, reflect.Float64:
		return cmp.Compare(a.Float(), b.Float())
	case reflect.String:
		return cmp.Compare(a.String(), b.String())
	case reflect.Bool:
		return cmp.Compare(boolInt(a.Bool()), boolInt(b.Bool()))
	}
	return cmp.Compare(fmt.Sprint(a), fmt.Sprint(b))
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
