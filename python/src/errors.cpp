// ember::Error and its kinds as Python's exceptions, as PyTorch raises them.
#include "common.h"

namespace ember::python {

void init_errors(nb::module_& m) {
  // torch.cuda.OutOfMemoryError is a RuntimeError; ember.cuda re-exports this one.
  // Created once and kept for the process's life, as Python's own exception types are.
  static PyObject* oom =
      PyErr_NewException("ember.cuda.OutOfMemoryError", PyExc_RuntimeError, nullptr);
  m.attr("OutOfMemoryError") = nb::borrow(oom);
  // torch.linalg.LinAlgError is torch._C._LinAlgError, a RuntimeError; ember.linalg re-exports.
  static PyObject* linalg_error =
      PyErr_NewException("ember._C._LinAlgError", PyExc_RuntimeError, nullptr);
  m.attr("_LinAlgError") = nb::borrow(linalg_error);
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const OutOfMemoryError& e) {
      PyErr_SetString(oom, e.what());
    } catch (const LinAlgError& e) {
      PyErr_SetString(linalg_error, e.what());
    } catch (const ArgumentTypeError& e) {
      PyErr_SetString(PyExc_TypeError, e.what());
    } catch (const TypeError& e) {
      // A dtype an op refuses ("\"abs\" not implemented for 'Bool'", mean of int64): c10::Error
      // in ATen, so RuntimeError in PyTorch.
      PyErr_SetString(PyExc_RuntimeError, e.what());
    } catch (const IndexError& e) {
      PyErr_SetString(PyExc_IndexError, e.what());
    } catch (const ValueError& e) {
      // Ember's C++ calls a bad shape or argument value ValueError; ATen raises c10::Error for
      // the same checks, so PyTorch users see RuntimeError. The checks PyTorch makes in Python
      // (module and optimizer arguments) raise ValueError from python/ember, as PyTorch does.
      PyErr_SetString(PyExc_RuntimeError, e.what());
    } catch (const NotImplementedError& e) {
      PyErr_SetString(PyExc_NotImplementedError, e.what());
    } catch (const Error& e) {
      // DeviceError, ZeroDivisionError and the rest: PyTorch raises RuntimeError for these.
      PyErr_SetString(PyExc_RuntimeError, e.what());
    }
  });
}

}  // namespace ember::python
