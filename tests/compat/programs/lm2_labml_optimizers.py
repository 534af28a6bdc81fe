"""labml.ai's annotated optimizers (labml_nn/optimizers: __init__.py's GenericAdaptiveOptimizer
and WeightDecay, adam.py, amsgrad.py with its _synthetic_experiment, radam.py, ada_belief.py,
adam_warmup.py, noam.py), the classes as written (the labml tracker / monit / experiment calls
left out), checked against torch.optim: a torch.optim.optimizer.Optimizer subclass whose step is
decorated with @torch.no_grad() and re-enables grad around the closure with torch.enable_grad(),
state initialised lazily in self.state[param] with torch.zeros_like(param,
memory_format=torch.preserve_format), grad.is_sparse, m.mul_(beta1).add_(grad, alpha=...),
v.mul_(beta2).addcmul_(grad, grad, value=...), torch.maximum(v_max, v, out=v_max),
param.data.addcdiv_(m, denominator, value=-step_size), param.data.mul_(1 - lr * wd) for
decoupled decay and grad.add(param.data, alpha=wd) for coupled decay, opt.defaults read by
get_lr, and x.data.clamp_(-1., +1.) on an nn.Parameter(..., requires_grad=False) optimum. Adam
(both update forms) matches torch.optim.Adam, AMSGrad matches Adam(amsgrad=True), the decoupled
WeightDecay matches AdamW, the coupled one Adam(weight_decay=...)."""
import math
from typing import Dict, Any, Tuple, Optional

import torch
from torch import nn
from torch.optim.optimizer import Optimizer


class GenericAdaptiveOptimizer(Optimizer):
    def __init__(self, params, defaults: Dict[str, Any], lr: float, betas: Tuple[float, float], eps: float):
        # Check the hyper-parameters
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")

        # Add the hyper-parameters to the defaults
        defaults.update(dict(lr=lr, betas=betas, eps=eps))
        # Initialize the PyTorch optimizer.
        # This will create parameter groups with the default hyper-parameters
        super().__init__(params, defaults)

    def init_state(self, state: Dict[str, any], group: Dict[str, any], param: nn.Parameter):
        pass

    def step_param(self, state: Dict[str, any], group: Dict[str, any], grad: torch.Tensor, param: torch.Tensor):
        pass

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()

        # Iterate through the parameter groups
        for group in self.param_groups:
            # Iterate through the parameters in the parameter group
            for param in group['params']:
                # Skip if the parameter has no gradient
                if param.grad is None:
                    continue
                # Get the gradient tensor
                grad = param.grad.data
                # We don't handle sparse gradients
                if grad.is_sparse:
                    raise RuntimeError('GenericAdaptiveOptimizer does not support sparse gradients,'
                                       ' please consider SparseAdam instead')

                # Get the state for the parameter
                state = self.state[param]

                # Initialize the state if state is uninitialized
                if len(state) == 0:
                    self.init_state(state, group, param)

                # Take the optimization step on the parameter
                self.step_param(state, group, grad, param)

        # Return the loss, calculated from closure
        return loss


class WeightDecay:
    def __init__(self, weight_decay: float = 0., weight_decouple: bool = True, absolute: bool = False):
        # Check hyper-parameters
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")

        self.absolute = absolute
        self.weight_decouple = weight_decouple
        self.weight_decay = weight_decay

    def defaults(self):
        return dict(weight_decay=self.weight_decay)

    def __call__(self, param: torch.nn.Parameter, grad: torch.Tensor, group: Dict[str, any]):
        # If we are doing the decay on the parameter directly
        if self.weight_decouple:
            # If the weight decay coefficient is absolute
            if self.absolute:
                param.data.mul_(1.0 - group['weight_decay'])
            # Otherwise,
            else:
                param.data.mul_(1.0 - group['lr'] * group['weight_decay'])
            # Return the unmodified gradient
            return grad
        else:
            if group['weight_decay'] != 0:
                # Add the weight decay to the gradient and return the modified gradient
                return grad.add(param.data, alpha=group['weight_decay'])
            else:
                return grad


class Adam(GenericAdaptiveOptimizer):

    def __init__(self, params,
                 lr: float = 1e-3, betas: Tuple[float, float] = (0.9, 0.999), eps: float = 1e-16,
                 weight_decay: WeightDecay = WeightDecay(),
                 optimized_update: bool = True,
                 defaults: Optional[Dict[str, Any]] = None):
        defaults = {} if defaults is None else defaults
        defaults.update(weight_decay.defaults())
        super().__init__(params, defaults, lr, betas, eps)

        self.weight_decay = weight_decay
        self.optimized_update = optimized_update

    def init_state(self, state: Dict[str, any], group: Dict[str, any], param: nn.Parameter):
        state['step'] = 0
        state['exp_avg'] = torch.zeros_like(param, memory_format=torch.preserve_format)
        state['exp_avg_sq'] = torch.zeros_like(param, memory_format=torch.preserve_format)

    def get_mv(self, state: Dict[str, Any], group: Dict[str, Any], grad: torch.Tensor):
        beta1, beta2 = group['betas']

        m, v = state['exp_avg'], state['exp_avg_sq']

        m.mul_(beta1).add_(grad, alpha=1 - beta1)
        v.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)

        return m, v

    def get_lr(self, state: Dict[str, any], group: Dict[str, any]):
        return group['lr']

    def adam_update(self, state: Dict[str, any], group: Dict[str, any], param: torch.nn.Parameter,
                    m: torch.Tensor, v: torch.Tensor):
        beta1, beta2 = group['betas']
        bias_correction1 = 1 - beta1 ** state['step']
        bias_correction2 = 1 - beta2 ** state['step']

        lr = self.get_lr(state, group)

        if self.optimized_update:
            denominator = v.sqrt().add_(group['eps'])
            step_size = lr * math.sqrt(bias_correction2) / bias_correction1
            param.data.addcdiv_(m, denominator, value=-step_size)
        else:
            denominator = (v.sqrt() / math.sqrt(bias_correction2)).add_(group['eps'])
            step_size = lr / bias_correction1
            param.data.addcdiv_(m, denominator, value=-step_size)

    def step_param(self, state: Dict[str, any], group: Dict[str, any], grad: torch.Tensor, param: torch.nn.Parameter):
        grad = self.weight_decay(param, grad, group)

        m, v = self.get_mv(state, group, grad)

        state['step'] += 1

        self.adam_update(state, group, param, m, v)


class AMSGrad(Adam):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-16,
                 weight_decay: WeightDecay = WeightDecay(),
                 optimized_update: bool = True,
                 amsgrad=True, defaults=None):
        defaults = {} if defaults is None else defaults
        defaults.update(dict(amsgrad=amsgrad))

        super().__init__(params, lr, betas, eps, weight_decay, optimized_update, defaults)

    def init_state(self, state: Dict[str, any], group: Dict[str, any], param: nn.Parameter):
        super().init_state(state, group, param)

        if group['amsgrad']:
            state['max_exp_avg_sq'] = torch.zeros_like(param, memory_format=torch.preserve_format)

    def get_mv(self, state: Dict[str, any], group: Dict[str, any], grad: torch.Tensor):
        m, v = super().get_mv(state, group, grad)

        if group['amsgrad']:
            v_max = state['max_exp_avg_sq']
            torch.maximum(v_max, v, out=v_max)

            return m, v_max
        else:
            return m, v


class RAdam(AMSGrad):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8,
                 weight_decay: WeightDecay = WeightDecay(),
                 optimized_update: bool = True,
                 amsgrad=False,
                 degenerated_to_sgd=True, defaults=None):
        self.degenerated_to_sgd = degenerated_to_sgd
        super().__init__(params, lr, betas, eps, weight_decay, optimized_update, amsgrad, defaults)

    def step_param(self, state: Dict[str, any], group: Dict[str, any], grad: torch.Tensor, param: torch.nn.Parameter):
        grad = self.weight_decay(param, grad, group)

        m, v = self.get_mv(state, group, grad)

        state['step'] += 1

        self.r_adam_update(state, group, param, m, v)

    @staticmethod
    def calc_rectification_term(beta2: float, step: int) -> Optional[float]:
        beta2_t = beta2 ** step
        rho_inf = 2 / (1 - beta2) - 1
        rho = rho_inf - 2 * step * beta2_t / (1 - beta2_t)

        if rho >= 5:
            r2 = (rho - 4) / (rho_inf - 4) * (rho - 2) / rho * rho_inf / (rho_inf - 2)
            return math.sqrt(r2)
        else:
            return None

    def r_adam_update(self, state: Dict[str, any], group: Dict[str, any], param: torch.nn.Parameter,
                      m: torch.Tensor, v: torch.Tensor):
        beta1, beta2 = group['betas']
        bias_correction1 = 1 - beta1 ** state['step']
        bias_correction2 = 1 - beta2 ** state['step']

        r = self.calc_rectification_term(beta2, state['step'])

        lr = self.get_lr(state, group)

        if r is not None:
            if self.optimized_update:
                denominator = v.sqrt().add_(group['eps'])
                step_size = lr * math.sqrt(bias_correction2) * r / bias_correction1
                param.data.addcdiv_(m, denominator, value=-step_size)
            else:
                denominator = (v.sqrt() / math.sqrt(bias_correction2)).add_(group['eps'])
                step_size = lr * r / bias_correction1
                param.data.addcdiv_(m, denominator, value=-step_size)

        elif self.degenerated_to_sgd:
            step_size = lr / bias_correction1
            param.data.add_(m, alpha=-step_size)


class AdaBelief(RAdam):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-16,
                 weight_decay: WeightDecay = WeightDecay(), amsgrad=False,
                 degenerate_to_sgd=True,
                 rectify=True, defaults=None):
        defaults = {} if defaults is None else defaults
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, degenerate_to_sgd, defaults)
        self.rectify = rectify

    def init_state(self, state: Dict[str, any], group: Dict[str, any], param: nn.Parameter):
        state['step'] = 0
        state['exp_avg'] = torch.zeros_like(param, memory_format=torch.preserve_format)
        state['exp_avg_var'] = torch.zeros_like(param, memory_format=torch.preserve_format)

        if group['amsgrad']:
            state['max_exp_avg_var'] = torch.zeros_like(param, memory_format=torch.preserve_format)

    def get_ms(self, state: Dict[str, Any], group: Dict[str, Any], grad: torch.Tensor):
        beta1, beta2 = group['betas']

        m, s = state['exp_avg'], state['exp_avg_var']

        m.mul_(beta1).add_(grad, alpha=1 - beta1)
        grad_residual = grad - m
        s.mul_(beta2).addcmul_(grad_residual, grad_residual, value=1 - beta2)

        if group['amsgrad']:
            s_max = state['max_exp_avg_var']
            torch.maximum(s_max, s, out=s_max)

            return m, s_max
        else:
            return m, s

    def step_param(self, state: Dict[str, any], group: Dict[str, any], grad: torch.Tensor, param: torch.nn.Parameter):
        grad = self.weight_decay(param, grad, group)

        m, s = self.get_ms(state, group, grad)

        state['step'] += 1

        if not self.rectify:
            self.adam_update(state, group, param, m, s + group['eps'])
        else:
            self.r_adam_update(state, group, param, m, s + group['eps'])


class AdamWarmup(AMSGrad):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-16,
                 weight_decay: WeightDecay = WeightDecay(),
                 optimized_update: bool = True,
                 amsgrad=False, warmup=0, defaults=None):
        defaults = {} if defaults is None else defaults
        defaults.update(dict(warmup=warmup))
        super().__init__(params, lr, betas, eps, weight_decay, optimized_update, amsgrad, defaults)

    def get_lr(self, state: Dict[str, any], group: Dict[str, any]):
        if group['warmup'] > state['step']:
            return 1e-8 + state['step'] * group['lr'] / group['warmup']
        else:
            return group['lr']


class Noam(AMSGrad):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-16,
                 weight_decay: WeightDecay = WeightDecay(),
                 optimized_update: bool = True,
                 amsgrad=False,
                 warmup=0, d_model=512, defaults=None):
        defaults = {} if defaults is None else defaults
        defaults.update(dict(warmup=warmup))
        super().__init__(params, lr, betas, eps, weight_decay, optimized_update, amsgrad, defaults)
        self.d_model = d_model

    def get_lr(self, state: Dict[str, any], group: Dict[str, any]):
        factor = min(state['step'] ** (-0.5), state['step'] * group['warmup'] ** (-1.5))
        return group['lr'] * self.d_model ** (-0.5) * factor


# ---------------------------------------------------------------- checks against torch.optim
torch.manual_seed(0)
X = torch.randn(64, 6)
Y = X @ torch.randn(6, 2) + 0.1 * torch.randn(64, 2)

def make_model():
    torch.manual_seed(1)
    return nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 2))

def train(make_opt, steps=30, closure_style=False):
    model = make_model()
    opt = make_opt(model.parameters())
    losses = []
    for _ in range(steps):
        def closure():
            opt.zero_grad()
            loss = nn.functional.mse_loss(model(X), Y)
            loss.backward()
            return loss
        if closure_style:
            loss = opt.step(closure)
        else:
            loss = closure()
            opt.step()
        losses.append(loss.item())
    return model, losses

def same(a, b, tol=1e-5):
    return all(torch.allclose(p, q, atol=tol) for p, q in zip(a.parameters(), b.parameters()))

ref, ref_losses = train(lambda p: torch.optim.Adam(p, lr=1e-2, eps=1e-8))
for optimized in (True, False):
    mine, losses = train(lambda p: Adam(p, lr=1e-2, eps=1e-8, optimized_update=optimized), closure_style=optimized)
    # the optimized form adds eps to sqrt(v) before the bias correction: close, not equal
    tol = 1e-3 if optimized else 1e-5
    print('Adam optimized_update=%s' % optimized, round(losses[-1], 6), same(mine, ref, tol))
    assert same(mine, ref, tol)

ref, _ = train(lambda p: torch.optim.Adam(p, lr=1e-2, eps=1e-8, amsgrad=True))
mine, losses = train(lambda p: AMSGrad(p, lr=1e-2, eps=1e-8, optimized_update=False))
print('AMSGrad', round(losses[-1], 6), same(mine, ref))
assert same(mine, ref)

ref, _ = train(lambda p: torch.optim.AdamW(p, lr=1e-2, eps=1e-8, weight_decay=0.1))
mine, _ = train(lambda p: Adam(p, lr=1e-2, eps=1e-8, optimized_update=False,
                               weight_decay=WeightDecay(0.1)))
print('decoupled decay vs AdamW', same(mine, ref))
assert same(mine, ref)

ref, _ = train(lambda p: torch.optim.Adam(p, lr=1e-2, eps=1e-8, weight_decay=0.1))
mine, _ = train(lambda p: Adam(p, lr=1e-2, eps=1e-8, optimized_update=False,
                               weight_decay=WeightDecay(0.1, weight_decouple=False)))
print('coupled decay vs Adam(weight_decay)', same(mine, ref))
assert same(mine, ref)

for name, make in [('RAdam', lambda p: RAdam(p, lr=1e-2)),
                   ('AdaBelief', lambda p: AdaBelief(p, lr=1e-2)),
                   ('AdamWarmup', lambda p: AdamWarmup(p, lr=1e-2, warmup=10)),
                   ('Noam', lambda p: Noam(p, lr=1.0, warmup=10, d_model=16))]:
    model, losses = train(make, steps=40)
    print(name, [round(l, 5) for l in losses[::10]])
    assert losses[-1] < losses[0]

print([round(RAdam.calc_rectification_term(0.999, i) or 0.0, 6) for i in (1, 5, 6, 100, 1000)])
model = nn.Linear(10, 10)
opts = [Noam(model.parameters(), d_model=512, warmup=4000, lr=1),
        Noam(model.parameters(), d_model=512, warmup=8000, lr=1),
        Noam(model.parameters(), d_model=2048, warmup=2000, lr=1)]
print([[round(opt.get_lr({'step': i}, opt.defaults), 8) for opt in opts] for i in (1, 2000, 4000, 19999)])

# amsgrad.py's synthetic experiment (shortened)
def _synthetic_experiment(is_adam: bool):
    x = nn.Parameter(torch.tensor([.0]))
    x_star = nn.Parameter(torch.tensor([-1]), requires_grad=False)

    def func(t: int, x_: nn.Parameter):
        if t % 101 == 1:
            return (1010 * x_).sum()
        else:
            return (-10 * x_).sum()

    if is_adam:
        optimizer = Adam([x], lr=1e-2, betas=(0.9, 0.99))
    else:
        optimizer = AMSGrad([x], lr=1e-2, betas=(0.9, 0.99))
    total_regret = 0

    for step in range(2020):
        regret = func(step, x) - func(step, x_star)
        total_regret += regret.item()
        regret.backward()
        optimizer.step()
        optimizer.zero_grad()

        x.data.clamp_(-1., +1.)
    print('Adam' if is_adam else 'AMSGrad', 'x =', round(x.item(), 4), 'mean regret', round(total_regret / 2020, 4))
    return x.item()

x_adam = _synthetic_experiment(True)
x_ams = _synthetic_experiment(False)
assert -1.0 <= x_ams <= 1.0 and -1.0 <= x_adam <= 1.0
