// torch.profiler.profile: starts a session, marks steps, stops and hands out the results.
#include "ember/profiler.h"
#include "profiler/range.h"

namespace ember::profiler {

std::vector<ProfilerActivity> supported_activities() {
  std::vector<ProfilerActivity> a{ProfilerActivity::CPU};
  if (cuda::is_available()) a.push_back(ProfilerActivity::CUDA);
  return a;
}

ProfileOptions::ProfileOptions() : activities_(supported_activities()) {}

profile::profile(const ProfileOptions& options)
    : session_(std::make_shared<detail::Session>(options)) {
  detail::begin_session(session_);
}

profile::profile(std::vector<ProfilerActivity> activities, bool record_shapes, bool profile_memory)
    : profile(ProfileOptions()
                  .activities(std::move(activities))
                  .record_shapes(record_shapes)
                  .profile_memory(profile_memory)) {}

profile::~profile() {
  stop();
}

void profile::stop() {
  step_range_.reset();
  detail::end_session(session_.get());
  session_->finish();
}

void profile::step() {
  if (step_ == 0) {
    // The first step ran from the start until now: its range is made afterwards, and what
    // this thread recorded at top level becomes its children.
    session_->add_first_step("ProfilerStep#0", detail::current_thread_id(), detail::now_ns());
  } else {
    step_range_.reset();
  }
  ++step_;
  if (detail::current_session() == session_) {
    step_range_ = std::make_unique<detail::Range>("ProfilerStep#" + std::to_string(step_),
                                                  EventKind::UserAnnotation);
  }
}

const std::vector<FunctionEvent>& profile::events() {
  stop();
  return session_->events();
}

const std::vector<MemoryEvent>& profile::memory_events() {
  stop();
  return session_->memory();
}

const std::vector<CopyEvent>& profile::copy_events() {
  stop();
  return session_->copies();
}

}  // namespace ember::profiler
