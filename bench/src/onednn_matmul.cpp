#include "onednn_matmul.h"

#include <fmt/format.h>

#include <mutex>

#include "xpuperf/core/dynamic_library.h"

#if XPUPERF_HAVE_ONEDNN
#include <oneapi/dnnl/dnnl.h>
#endif

namespace xpuperf::bench {

#if XPUPERF_HAVE_ONEDNN
namespace {

// The oneDNN 2.x C API functions used here, resolved from libdnnl.so.2.
struct OneDnnApi {
  DynamicLibrary library;
  decltype(&dnnl_version) version = nullptr;
  decltype(&dnnl_engine_create) engine_create = nullptr;
  decltype(&dnnl_engine_destroy) engine_destroy = nullptr;
  decltype(&dnnl_stream_create) stream_create = nullptr;
  decltype(&dnnl_stream_destroy) stream_destroy = nullptr;
  decltype(&dnnl_stream_wait) stream_wait = nullptr;
  decltype(&dnnl_memory_desc_init_by_tag) memory_desc_init_by_tag = nullptr;
  decltype(&dnnl_memory_create) memory_create = nullptr;
  decltype(&dnnl_memory_destroy) memory_destroy = nullptr;
  decltype(&dnnl_memory_set_data_handle) memory_set_data_handle = nullptr;
  decltype(&dnnl_matmul_desc_init) matmul_desc_init = nullptr;
  decltype(&dnnl_primitive_desc_create) primitive_desc_create = nullptr;
  decltype(&dnnl_primitive_desc_destroy) primitive_desc_destroy = nullptr;
  decltype(&dnnl_primitive_desc_query) primitive_desc_query = nullptr;
  decltype(&dnnl_primitive_create) primitive_create = nullptr;
  decltype(&dnnl_primitive_destroy) primitive_destroy = nullptr;
  decltype(&dnnl_primitive_execute) primitive_execute = nullptr;
};

Result<OneDnnApi> LoadApi() {
  XPUPERF_ASSIGN_OR_RETURN(DynamicLibrary library,
                           DynamicLibrary::Open({"libdnnl.so.2", "libdnnl.so"}));
  OneDnnApi api{std::move(library)};
  const DynamicLibrary& l = api.library;
  XPUPERF_RETURN_IF_ERROR(l.Bind(&api.version, "dnnl_version"));
  XPUPERF_RETURN_IF_ERROR(l.Bind(&api.engine_create, "dnnl_engine_create"));
  XPUPERF_RETURN_IF_ERROR(l.Bind(&api.engine_destroy, "dnnl_engine_destroy"));
  XPUPERF_RETURN_IF_ERROR(l.Bind(&api.stream_create, "dnnl_stream_create"));
  XPUPERF_RETURN_IF_ERROR(l.Bind(&api.stream_destroy, "dnnl_stream_destroy"));
  XPUPERF_RETURN_IF_ERROR(l.Bind(&api.stream_wait, "dnnl_stream_wait"));
  XPUPERF_RETURN_IF_ERROR(l.Bind(&api.memory_desc_init_by_tag, "dnnl_memory_desc_init_by_tag"));
  XPUPERF_RETURN_IF_ERROR(l.Bind(&api.memory_create, "dnnl_memory_create"));
  XPUPERF_RETURN_IF_ERROR(l.Bind(&api.memory_destroy, "dnnl_memory_destroy"));
  XPUPERF_RETURN_IF_ERROR(l.Bind(&api.memory_set_data_handle, "dnnl_memory_set_data_handle"));
  XPUPERF_RETURN_IF_ERROR(l.Bind(&api.matmul_desc_init, "dnnl_matmul_desc_init"));
  XPUPERF_RETURN_IF_ERROR(l.Bind(&api.primitive_desc_create, "dnnl_primitive_desc_create"));
  XPUPERF_RETURN_IF_ERROR(l.Bind(&api.primitive_desc_destroy, "dnnl_primitive_desc_destroy"));
  XPUPERF_RETURN_IF_ERROR(l.Bind(&api.primitive_desc_query, "dnnl_primitive_desc_query"));
  XPUPERF_RETURN_IF_ERROR(l.Bind(&api.primitive_create, "dnnl_primitive_create"));
  XPUPERF_RETURN_IF_ERROR(l.Bind(&api.primitive_destroy, "dnnl_primitive_destroy"));
  XPUPERF_RETURN_IF_ERROR(l.Bind(&api.primitive_execute, "dnnl_primitive_execute"));
  if (api.version()->major != DNNL_VERSION_MAJOR) {
    return MakeError(ErrorCode::kUnsupported,
                     fmt::format("unsupported: {} is oneDNN {}, this build speaks the {}.x API",
                                 api.library.path(), api.version()->major, DNNL_VERSION_MAJOR));
  }
  return api;
}

// Loaded once per process; the library stays open (DynamicLibrary's default).
const Result<OneDnnApi>& Api() {
  static const Result<OneDnnApi> api = LoadApi();
  return api;
}

Status Check(dnnl_status_t status, const char* what) {
  if (status == dnnl_success) return Status::Ok();
  return MakeError(ErrorCode::kInternal,
                   fmt::format("oneDNN {} failed (status {})", what, static_cast<int>(status)));
}

class Matmul final : public OneDnnMatmul {
 public:
  explicit Matmul(const OneDnnApi& api) : api_(api) {}
  ~Matmul() override {
    for (dnnl_memory_t memory : memories_) {
      if (memory != nullptr) api_.memory_destroy(memory);
    }
    if (primitive_ != nullptr) api_.primitive_destroy(primitive_);
    if (descriptor_ != nullptr) api_.primitive_desc_destroy(descriptor_);
    if (stream_ != nullptr) api_.stream_destroy(stream_);
    if (engine_ != nullptr) api_.engine_destroy(engine_);
  }

  Status Init(Precision precision, const GemmShape& shape) {
    dnnl_data_type_t a_type = dnnl_f32, b_type = dnnl_f32, c_type = dnnl_f32;
    if (precision == Precision::kBf16) {
      a_type = b_type = dnnl_bf16;
    } else if (precision == Precision::kInt8) {
      a_type = dnnl_u8;
      b_type = dnnl_s8;
      c_type = dnnl_s32;
    }
    XPUPERF_RETURN_IF_ERROR(Check(api_.engine_create(&engine_, dnnl_cpu, 0), "engine_create"));
    XPUPERF_RETURN_IF_ERROR(
        Check(api_.stream_create(&stream_, engine_, dnnl_stream_default_flags), "stream_create"));
    const dnnl_dims_t a_dims = {shape.m, shape.k};
    const dnnl_dims_t b_dims = {shape.k, shape.n};
    const dnnl_dims_t c_dims = {shape.m, shape.n};
    dnnl_memory_desc_t a, b, c;
    XPUPERF_RETURN_IF_ERROR(
        Check(api_.memory_desc_init_by_tag(&a, 2, a_dims, a_type, dnnl_ab), "memory_desc (A)"));
    XPUPERF_RETURN_IF_ERROR(
        Check(api_.memory_desc_init_by_tag(&b, 2, b_dims, b_type, dnnl_ab), "memory_desc (B)"));
    XPUPERF_RETURN_IF_ERROR(
        Check(api_.memory_desc_init_by_tag(&c, 2, c_dims, c_type, dnnl_ab), "memory_desc (C)"));
    dnnl_matmul_desc_t desc;
    XPUPERF_RETURN_IF_ERROR(
        Check(api_.matmul_desc_init(&desc, &a, &b, nullptr, &c), "matmul_desc_init"));
    const dnnl_status_t created =
        api_.primitive_desc_create(&descriptor_, &desc, nullptr, engine_, nullptr);
    if (created == dnnl_unimplemented) {
      descriptor_ = nullptr;
      return MakeError(ErrorCode::kUnsupported,
                       fmt::format("unsupported: oneDNN has no {} matmul for this CPU",
                                   PrecisionName(precision)));
    }
    XPUPERF_RETURN_IF_ERROR(Check(created, "primitive_desc_create"));
    const char* info = nullptr;
    if (api_.primitive_desc_query(descriptor_, dnnl_query_impl_info_str, 0, &info) ==
            dnnl_success &&
        info != nullptr) {
      implementation_ = info;
    }
    XPUPERF_RETURN_IF_ERROR(Check(api_.primitive_create(&primitive_, descriptor_), "primitive"));
    const dnnl_memory_desc_t* descs[] = {&a, &b, &c};
    for (int i = 0; i < 3; ++i) {
      XPUPERF_RETURN_IF_ERROR(
          Check(api_.memory_create(&memories_[i], descs[i], engine_, DNNL_MEMORY_NONE), "memory"));
    }
    return Status::Ok();
  }

  Status Execute(const void* a, const void* b, void* c) override {
    // Rebinding only when a buffer changes keeps the timed loop to execute + wait, as a bare
    // loop over the primitive would be.
    const void* handles[] = {a, b, c};
    for (int i = 0; i < 3; ++i) {
      if (bound_[i] == handles[i]) continue;
      XPUPERF_RETURN_IF_ERROR(Check(
          api_.memory_set_data_handle(memories_[i], const_cast<void*>(handles[i])), "handle"));
      bound_[i] = handles[i];
    }
    const dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, memories_[0]},
                                    {DNNL_ARG_WEIGHTS, memories_[1]},
                                    {DNNL_ARG_DST, memories_[2]}};
    XPUPERF_RETURN_IF_ERROR(Check(api_.primitive_execute(primitive_, stream_, 3, args), "execute"));
    return Check(api_.stream_wait(stream_), "stream_wait");
  }

  std::string implementation() const override { return implementation_; }

 private:
  const OneDnnApi& api_;
  dnnl_engine_t engine_ = nullptr;
  dnnl_stream_t stream_ = nullptr;
  dnnl_primitive_desc_t descriptor_ = nullptr;
  dnnl_primitive_t primitive_ = nullptr;
  dnnl_memory_t memories_[3] = {nullptr, nullptr, nullptr};
  const void* bound_[3] = {nullptr, nullptr, nullptr};
  std::string implementation_;
};

}  // namespace

Result<std::unique_ptr<OneDnnMatmul>> OneDnnMatmul::Create(Precision precision,
                                                           const GemmShape& shape) {
  if (precision != Precision::kFp32 && precision != Precision::kBf16 &&
      precision != Precision::kInt8) {
    return MakeError(ErrorCode::kUnsupported,
                     fmt::format("unsupported: no oneDNN matmul for {} (fp32, bf16, int8)",
                                 PrecisionName(precision)));
  }
  const Result<OneDnnApi>& api = Api();
  if (!api.ok()) return api.error();
  auto matmul = std::make_unique<Matmul>(*api);
  XPUPERF_RETURN_IF_ERROR(matmul->Init(precision, shape));
  return std::unique_ptr<OneDnnMatmul>(std::move(matmul));
}

std::string OneDnnVersion() {
  const Result<OneDnnApi>& api = Api();
  if (!api.ok()) return api.error().message;
  const dnnl_version_t* v = api->version();
  return fmt::format("oneDNN {}.{}.{} ({})", v->major, v->minor, v->patch, api->library.path());
}

#else

Result<std::unique_ptr<OneDnnMatmul>> OneDnnMatmul::Create(Precision, const GemmShape&) {
  return MakeError(ErrorCode::kUnsupported,
                   "unsupported: built without the oneDNN 2.x headers (libdnnl-dev)");
}

std::string OneDnnVersion() { return "unsupported: built without the oneDNN 2.x headers"; }

#endif

}  // namespace xpuperf::bench
