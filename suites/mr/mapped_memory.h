// Page-aligned anonymous memory for registration tests: sizes, protections and huge pages
// that a std::vector cannot give.
#ifndef RDMACHECK_SUITES_MR_MAPPED_MEMORY_H_
#define RDMACHECK_SUITES_MR_MAPPED_MEMORY_H_

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "harness/status.h"

namespace rdmacheck {

class MappedMemory {
 public:
  // mmap(length, prot, MAP_PRIVATE | MAP_ANONYMOUS | extra_flags); the pages are touched
  // (when writable) so registration pins real memory.
  static absl::StatusOr<MappedMemory> Map(size_t length, int prot = PROT_READ | PROT_WRITE, int extra_flags = 0) {
    void* p = mmap(nullptr, length, prot, MAP_PRIVATE | MAP_ANONYMOUS | extra_flags, -1, 0);
    if (p == MAP_FAILED) return ErrnoStatus(errno, absl::StrCat("mmap(", length, " bytes, flags 0x", absl::Hex(extra_flags), ")"));
    MappedMemory m;
    m.data_ = static_cast<uint8_t*>(p);
    m.length_ = length;
    if (prot & PROT_WRITE) {
      for (size_t i = 0; i < length; i += 4096) m.data_[i] = 1;
    }
    return m;
  }

  MappedMemory() = default;
  MappedMemory(MappedMemory&& other) noexcept : data_(other.data_), length_(other.length_) { other.data_ = nullptr; }
  MappedMemory& operator=(MappedMemory&& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(length_, other.length_);
    return *this;
  }
  ~MappedMemory() {
    if (data_ != nullptr) munmap(data_, length_);
  }

  uint8_t* data() const { return data_; }
  size_t size() const { return length_; }

  static size_t PageSize() { return static_cast<size_t>(sysconf(_SC_PAGESIZE)); }

 private:
  uint8_t* data_ = nullptr;
  size_t length_ = 0;
};

}  // namespace rdmacheck

#endif  // RDMACHECK_SUITES_MR_MAPPED_MEMORY_H_
