package mapping

import "reflect"

// Contains reports whether addr lies in the mapping data: a fault
// recovered under debug.SetPanicOnFault is blamed on the mapping that
// holds its address.
func Contains(data []byte, addr uintptr) bool {
	start := reflect.ValueOf(data).Pointer()
	return addr >= start && addr-start < uintptr(len(data))
}
