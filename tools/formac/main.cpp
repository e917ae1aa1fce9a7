// formac: the command-line compiler. The work runs on a thread with a large
// stack so that deeply nested (but legal) programs cannot overflow it.
#include <pthread.h>

#include <cstdio>
#include <string>
#include <vector>

#include "driver/Driver.h"
#include "run/RunCommand.h"

namespace {

struct Job {
  std::vector<std::string> args;
  int status = 70;
};

void* runJob(void* arg) {
  Job* job = static_cast<Job*>(arg);
  // `formac run PROGRAM ...` compiles in-process and runs (compiler/run).
  if (!job->args.empty() && job->args[0] == "run")
    job->status = formac::run::runCommand({job->args.begin() + 1, job->args.end()});
  else
    job->status = formac::runDriver(job->args);
  return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  Job job;
  for (int i = 1; i < argc; ++i) job.args.push_back(argv[i]);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, size_t(1) << 30);
  pthread_t thread;
  if (pthread_create(&thread, &attr, runJob, &job) != 0) {
    runJob(&job);  // no thread: run on the main stack
  } else {
    pthread_join(thread, nullptr);
  }
  pthread_attr_destroy(&attr);
  std::fflush(stdout);
  return job.status;
}
