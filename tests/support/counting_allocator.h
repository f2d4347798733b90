#pragma once
// A global allocator that counts: link support/counting_allocator.cpp into a test executable of its
// own (it replaces operator new for the whole program) and compare heap_allocations() around the code
// that must not allocate.

namespace foothold::test {

/// Calls to operator new (any form) since the program started.
long heap_allocations();

}  // namespace foothold::test
